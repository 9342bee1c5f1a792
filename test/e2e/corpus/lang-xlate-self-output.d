/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
struct in { int a; }; struct out { int b; }; translator struct out < struct in *p > { b = p->a; }; translator struct out < struct out *o > { b = o->b + 100; }; struct in g; BEGIN { g.a = 1; printf("%d\n", xlate <struct out> (&g).b); exit(0); }
