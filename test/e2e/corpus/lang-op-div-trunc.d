/* flags: -q */
BEGIN
{
	printf("%d %d\n", -7 / 2, 7 / -2);
	exit(0);
}
