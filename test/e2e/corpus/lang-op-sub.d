/* flags: -q */
BEGIN
{
	printf("%d\n", 3 - 5);
	exit(0);
}
