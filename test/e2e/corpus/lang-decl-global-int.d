/* flags: -q */
int x;

BEGIN
{
	x = 3;
	printf("%d\n", x);
	exit(0);
}
