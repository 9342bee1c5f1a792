/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
struct b { int a:3; int b:5; }; struct b x; BEGIN { x.a = 3; x.b = 17; printf("%d %d\n", x.a, x.b); exit(0); }
