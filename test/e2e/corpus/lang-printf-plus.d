/* flags: -q */
BEGIN
{
	printf("%+d %+d\n", 5, -5);
	exit(0);
}
