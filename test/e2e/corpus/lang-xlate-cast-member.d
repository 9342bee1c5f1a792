/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
struct in { int a; }; struct out { char c; }; translator struct out < struct in *p > { c = (char)p->a; }; struct in g; BEGIN { g.a = 321; printf("%d\n", xlate <struct out> (&g).c); exit(0); }
