/* flags: -q */
BEGIN
{
	printf("%d %d %d\n", 10 - 4 - 3, 64 / 4 / 2, 2 * 3 % 4);
	exit(0);
}
