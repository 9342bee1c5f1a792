/* flags: -q */
BEGIN
{
	printf("%#x %#o\n", 255, 8);
	exit(0);
}
