/* flags: -q */
enum e { A, B };

BEGIN
{
	printf("%d\n", sizeof (enum e));
	exit(0);
}
