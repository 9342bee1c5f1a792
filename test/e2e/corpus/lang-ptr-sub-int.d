/* flags: -q */
BEGIN
{
	printf("%d\n", (long)((long *)64 - 2));
	exit(0);
}
