/* flags: -xerrtags */
/* Agrees with the reference DTrace (message, tag and exit status). */
self int x; self string x; BEGIN { exit(0); }
