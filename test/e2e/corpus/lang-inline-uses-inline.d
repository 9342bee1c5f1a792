/* flags: -q */
inline int a = 4;
inline int b = a * 2;

BEGIN
{
	printf("%d\n", b);
	exit(0);
}
