/* flags: -q */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
struct s1 { int a; char b; };
struct s4 { char c; unsigned long long u; short s; };
struct s5 { short s; double d; char c; };
struct s1 arr[3];
BEGIN
{
	printf("%d %d %d %d\n", sizeof(struct s1), sizeof(struct s4), sizeof(struct s5), sizeof(arr));
	printf("%d %d\n", offsetof(struct s4, s), offsetof(struct s5, d));
	exit(0);
}
