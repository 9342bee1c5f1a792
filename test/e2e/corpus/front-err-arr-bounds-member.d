/* flags: -xerrtags */
/* Agrees with the reference DTrace (message, tag and exit status). */
struct s { int a[3]; }; struct s x; BEGIN { trace(x.a[3]); }
