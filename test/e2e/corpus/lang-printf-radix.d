/* flags: -q */
BEGIN
{
	printf("%x %X %o\n", 255, 255, 8);
	exit(0);
}
