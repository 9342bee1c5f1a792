/* flags: -q */
BEGIN
{
	printf("%5.2s|\n", "xyz");
	exit(0);
}
