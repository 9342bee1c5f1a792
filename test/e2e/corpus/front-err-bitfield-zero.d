/* flags: -xerrtags */
/* Agrees with the reference DTrace (message, tag and exit status). */
struct b { int a:0; }; BEGIN { exit(0); }
