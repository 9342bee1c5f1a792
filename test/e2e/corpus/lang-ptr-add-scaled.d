/* flags: -q */
BEGIN
{
	printf("%d\n", (long)((int *)0 + 3));
	exit(0);
}
