/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
struct b { char c; int a:4; short s; }; BEGIN { printf("%d\n", sizeof (struct b)); exit(0); }
