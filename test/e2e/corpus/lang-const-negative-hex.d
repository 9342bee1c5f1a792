/* flags: -q */
BEGIN
{
	printf("%d\n", -0x10);
	exit(0);
}
