/* flags: -q */
inline char small = 300;

BEGIN
{
	printf("%d\n", small);
	exit(0);
}
