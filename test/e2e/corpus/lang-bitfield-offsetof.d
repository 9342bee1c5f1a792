/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
struct b { char c; int a:4; int d; }; BEGIN { printf("%d %d\n", offsetof(struct b, d), sizeof (struct b)); exit(0); }
