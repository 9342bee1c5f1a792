/* flags: -q */
inline int N = 4;
struct s { int v[N]; };
enum { M = 3 };
struct t { char c[M]; };
BEGIN
{
	printf("%d %d\n", sizeof(struct s), sizeof(struct t));
	exit(0);
}
