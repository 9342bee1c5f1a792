/* flags: -q */
BEGIN
{
	printf("%*d\n", 6, 7);
	exit(0);
}
