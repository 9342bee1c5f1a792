/* flags: -q */
BEGIN
{
	printf("%d\n", 2 + 3);
	exit(0);
}
