/* flags: -q */
BEGIN
{
	printf("%d %d\n", -(-5), +3);
	exit(0);
}
