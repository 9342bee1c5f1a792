/* flags: -q */
inline int MAXV = 10 * 4;
inline string GREETING = "hello";
inline int TWICE = MAXV * 2;
BEGIN
{
	printf("%d %d %s\n", MAXV, TWICE, GREETING);
	exit(0);
}
