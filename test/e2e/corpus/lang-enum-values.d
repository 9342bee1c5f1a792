/* flags: -q */
enum e { A, B = 5, C };

BEGIN
{
	printf("%d %d %d\n", A, B, C);
	exit(0);
}
