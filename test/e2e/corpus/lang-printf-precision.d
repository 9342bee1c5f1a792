/* flags: -q */
BEGIN
{
	printf("%.3s\n", "abcdef");
	exit(0);
}
