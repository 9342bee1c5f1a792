/* flags: -xerrtags */
/* Agrees with the reference DTrace (message, tag and exit status). */
this int x; this long x; BEGIN { exit(0); }
