/* flags: -q */
BEGIN
{
	printf("%u\n", -1);
	exit(0);
}
