/* flags: -q */
BEGIN
{
	printf("%d %d %d %d\n", 2 + 3 * 4, (2 + 3) * 4, 1 << 2 + 1, 7 & 3 == 3);
	exit(0);
}
