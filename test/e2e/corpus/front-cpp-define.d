/* flags: -C -q -xerrtags */
/* Agrees with the reference DTrace (output and exit status). */
#define N 7
#define SQ(x) ((x) * (x))
BEGIN { printf("%d\n", SQ(N)); exit(0); }
