/* flags: -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
struct s { int a; };
BEGIN { trace(offsetof(struct s, nope)); exit(0); }
