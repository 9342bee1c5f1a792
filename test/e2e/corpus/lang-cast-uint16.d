/* flags: -q */
BEGIN
{
	printf("%d\n", (uint16_t)-2);
	exit(0);
}
