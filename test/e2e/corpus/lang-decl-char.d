/* flags: -q */
char c;

BEGIN
{
	c = 0x141;
	printf("%d\n", c);
	exit(0);
}
