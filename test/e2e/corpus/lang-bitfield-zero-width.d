/* flags: -q */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
struct s7 { int a:3; int :0; int b:2; char c; };
struct s3 { int a:3; int :5; int b:4; };
struct s5 { int :3; char c; };
BEGIN
{
	printf("%d %d %d %d %d\n", sizeof(struct s7), offsetof(struct s7, c), sizeof(struct s3), sizeof(struct s5), offsetof(struct s5, c));
	exit(0);
}
