/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
struct b { short a:9; short b:9; }; BEGIN { printf("%d\n", sizeof (struct b)); exit(0); }
