/* flags: -q */
BEGIN
{
	printf("%d %d %d\n", 1, (2), ((3)));
	exit(0);
}
