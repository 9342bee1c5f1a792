/* flags: -q */
BEGIN
{
	x = 0;
	printf("%d\n", x != 0 && 10 / x > 1);
	exit(0);
}
