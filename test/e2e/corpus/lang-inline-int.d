/* flags: -q */
inline int two = 2;

BEGIN
{
	printf("%d\n", two * 21);
	exit(0);
}
