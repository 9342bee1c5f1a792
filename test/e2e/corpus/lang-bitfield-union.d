/* flags: -q */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
union u1 { int a:3; char b[5]; };
union u2 { long a:40; short b; };
struct s10 { char c; int a:3; };
BEGIN
{
	printf("%d %d %d\n", sizeof(union u1), sizeof(union u2), sizeof(struct s10));
	exit(0);
}
