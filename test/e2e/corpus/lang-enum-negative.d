/* flags: -q */
enum { N = -3, M };

BEGIN
{
	printf("%d %d\n", N, M);
	exit(0);
}
