/* flags: -q */
BEGIN
{
	printf("%d %d\n", (unsigned int)-1 > 1, -1 > 1);
	exit(0);
}
