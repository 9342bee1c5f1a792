/* flags: -xerrtags */
/* Agrees with the reference DTrace (message, tag and exit status). */
struct in { int a; }; struct out { int b; }; struct in g; BEGIN { trace(xlate <struct out> (&g).b); }
