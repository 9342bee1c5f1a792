/* flags: -q */
BEGIN
{
	printf("%u\n", (unsigned int)0x80000000 >> 4);
	exit(0);
}
