/* flags: -q */
BEGIN
{
	printf("%d\n", 4294967296 * 2);
	exit(0);
}
