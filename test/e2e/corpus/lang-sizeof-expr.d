/* flags: -q */
BEGIN
{
	printf("%d %d\n", sizeof (1), sizeof (1L));
	exit(0);
}
