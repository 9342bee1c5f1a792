/* flags: -q */
BEGIN
{
	printf("%d %d\n", pid > 0, tid > 0);
	exit(0);
}
