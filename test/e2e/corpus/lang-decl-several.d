/* flags: -q */
int a, b;
long c;

BEGIN
{
	a = 1; b = 2; c = 3;
	printf("%d\n", a + b + c);
	exit(0);
}
