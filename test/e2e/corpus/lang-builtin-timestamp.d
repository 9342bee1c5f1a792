/* flags: -q */
BEGIN
{
	printf("%d %d\n", timestamp > 0, walltimestamp > 1000000000000000000);
	exit(0);
}
