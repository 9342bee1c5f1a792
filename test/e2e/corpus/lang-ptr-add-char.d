/* flags: -q */
BEGIN
{
	printf("%d\n", (long)((char *)0 + 3));
	exit(0);
}
