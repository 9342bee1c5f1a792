/* flags: -q */
BEGIN
{
	printf("%d %d %d\n", 0x1F, 017, 10);
	exit(0);
}
