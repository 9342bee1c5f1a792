/* flags: -q */
typedef unsigned char byte_t;
byte_t b;

BEGIN
{
	b = 511;
	printf("%d\n", b);
	exit(0);
}
