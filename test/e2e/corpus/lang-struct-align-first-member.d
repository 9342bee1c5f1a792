/* flags: -q */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
struct s2 { char c; long l; };
struct s3 { char x; struct s2 s; };
struct s4 { int a:3; int b:5; int c; };
struct s9 { char c; struct s4 s; };
union u1 { char c; long l; };
struct s6 { char c; union u1 u; };
BEGIN
{
	printf("%d %d %d %d\n", sizeof(struct s3), offsetof(struct s3, s), sizeof(struct s9), offsetof(struct s9, s));
	printf("%d %d %d\n", sizeof(union u1), sizeof(struct s6), offsetof(struct s6, u));
	exit(0);
}
