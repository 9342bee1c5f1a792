/* flags: -xerrtags */
/* Agrees with the reference DTrace (message, tag and exit status). */
struct in { int a; }; struct out { int b; }; translator struct out < struct in *p > { b = p->a; }; struct in g; BEGIN { trace(xlate <struct out> (&g)); }
