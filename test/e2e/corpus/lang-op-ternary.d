/* flags: -q */
BEGIN
{
	printf("%d\n", 5 > 3 ? 10 : 20);
	exit(0);
}
