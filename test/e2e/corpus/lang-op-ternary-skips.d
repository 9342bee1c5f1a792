/* flags: -q */
BEGIN
{
	x = 0;
	printf("%d\n", x == 0 ? 42 : 10 / x);
	exit(0);
}
