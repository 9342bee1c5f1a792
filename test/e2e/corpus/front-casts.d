/* flags: -q */
BEGIN
{
	printf("%d %d %d\n", (char)257, (short)65537, (int)0x100000002);
	printf("%d %d\n", (char)-1, (int)(char)200);
	printf("%d\n", (long)-1 < 0);
	exit(0);
}
