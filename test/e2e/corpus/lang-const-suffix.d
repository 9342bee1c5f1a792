/* flags: -q */
BEGIN
{
	printf("%d %d\n", 10UL, 5L);
	exit(0);
}
