/* flags: -q */
/* Inlines with a tuple signature, as DTrace's io.d declares fds[]: each use binds the keys. */
inline int sq[int x] = x * x;
inline int add[int a, int b] = a + b;
inline string pick[int i, string s] = i > 0 ? s : "none";

BEGIN
{
	printf("%d %d %s %s\n", sq[3], add[sq[2], add[1, 2]], pick[1, "one"], pick[0, "one"]);
	exit(0);
}
