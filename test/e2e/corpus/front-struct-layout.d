/* flags: -q */
struct a { char c; short s; int i; char d; long l; char e; };
struct b { char c[3]; };
struct n { struct b x; int y; struct a *next; };
BEGIN
{
	printf("%d %d %d %d %d %d\n", sizeof(struct a), offsetof(struct a, s), offsetof(struct a, i), offsetof(struct a, d), offsetof(struct a, l), offsetof(struct a, e));
	printf("%d %d %d\n", sizeof(struct b), sizeof(struct n), offsetof(struct n, next));
	exit(0);
}
