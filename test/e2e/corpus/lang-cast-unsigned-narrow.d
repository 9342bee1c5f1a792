/* flags: -q */
BEGIN
{
	printf("%d %d\n", (unsigned char)-1, (uint8_t)257);
	exit(0);
}
