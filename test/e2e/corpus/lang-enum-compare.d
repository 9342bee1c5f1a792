/* flags: -q */
enum e { A, B };

BEGIN
{
	printf("%d\n", A == 0 && B == 1);
	exit(0);
}
