/* flags: -q */
BEGIN
{
	printf("%d %d %d\n", (char)300, (short)70000, (int)0x100000001);
	exit(0);
}
