/* flags: -q -xerrtags */
/* Agrees with the reference DTrace (output and exit status). */
struct in { char c; long l; };
struct out { int a; struct in b; short s; };
BEGIN { printf("%d %d %d\n", offsetof(struct out, b), offsetof(struct out, s), sizeof (struct out)); exit(0); }
