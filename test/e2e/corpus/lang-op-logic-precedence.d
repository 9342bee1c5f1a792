/* flags: -q */
BEGIN
{
	printf("%d %d\n", 1 || 0 && 0, (1 || 0) && 0);
	exit(0);
}
