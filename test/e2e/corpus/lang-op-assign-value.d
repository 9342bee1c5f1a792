/* flags: -q */
BEGIN
{
	x = y = 4;
	printf("%d %d %d\n", x, y, (z = 9) + 1);
	exit(0);
}
