/* flags: -q */
BEGIN
{
	printf("%d\n", sizeof (struct list_head));
	exit(0);
}
