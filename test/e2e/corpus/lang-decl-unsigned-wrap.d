/* flags: -q */
unsigned char u;

BEGIN
{
	u = 255;
	u++;
	printf("%d\n", u);
	exit(0);
}
