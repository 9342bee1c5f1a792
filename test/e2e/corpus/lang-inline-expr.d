/* flags: -q */
inline int sq = 3 * 3;

BEGIN
{
	printf("%d\n", sq + 1);
	exit(0);
}
