/* flags: -xerrtags */
/* Agrees with the reference DTrace (message, tag and exit status). */
struct b { char *p:3; }; BEGIN { exit(0); }
