/* flags: -q */
BEGIN
{
	printf("%d %d\n", -7 % 3, 7 % -3);
	exit(0);
}
