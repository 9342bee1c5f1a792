/* flags: -q */
BEGIN
{
	printf("%d\n", 1 ? 0 ? 5 : 6 : 7);
	exit(0);
}
