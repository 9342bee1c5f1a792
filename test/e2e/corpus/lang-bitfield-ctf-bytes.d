/* flags: -q */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
struct s4 { int a:3; int b:5; int c; };
struct s5 { char a:1; int b:12; char c; };
struct s6 { long a:33; char b; };
struct s8 { unsigned a:17; unsigned b:17; char c; };
BEGIN
{
	printf("%d %d %d %d\n", sizeof(struct s4), sizeof(struct s5), sizeof(struct s6), sizeof(struct s8));
	printf("%d %d %d %d\n", offsetof(struct s4, c), offsetof(struct s5, c), offsetof(struct s6, b), offsetof(struct s8, c));
	exit(0);
}
