/* flags: -q */
BEGIN
{
	printf("%d\n", errno);
	exit(0);
}
