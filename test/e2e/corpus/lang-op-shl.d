/* flags: -q */
BEGIN
{
	printf("%d\n", 1 << 10);
	exit(0);
}
