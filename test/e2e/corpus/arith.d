/* flags: -q */
BEGIN
{
	x = 7;
	y = 2;
	printf("%d %d %d %d\n", x / y, x % y, -x / y, x << 3);
	exit(0);
}
