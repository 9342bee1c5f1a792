/* flags: -q */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
struct s1 { char c; struct sockaddr_in s; };
struct s2 { char c; struct in6_addr a; };
struct s3 { char c; union sigval v; };
struct s4 { char c; struct timespec64 ts; };
BEGIN
{
	printf("%d %d %d %d\n", offsetof(struct s1, s), offsetof(struct s2, a), offsetof(struct s3, v), offsetof(struct s4, ts));
	printf("%d %d %d %d\n", sizeof(struct s1), sizeof(struct s2), sizeof(struct s3), sizeof(struct s4));
	exit(0);
}
