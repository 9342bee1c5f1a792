/* flags: -xerrtags */
/* Agrees with the reference DTrace (message, tag and exit status). */
struct s { int a; }; self struct s st; BEGIN { self->st = 1; }
