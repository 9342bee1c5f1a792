/* flags: -q */
BEGIN
{
	printf("%d\n", arg0);
	exit(0);
}
