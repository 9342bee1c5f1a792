/* flags: -q */
long x;

BEGIN
{
	printf("%d %d\n", sizeof (x), sizeof x);
	exit(0);
}
