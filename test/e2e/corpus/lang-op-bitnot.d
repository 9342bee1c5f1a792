/* flags: -q */
BEGIN
{
	printf("%d %x\n", ~0, ~0U);
	exit(0);
}
