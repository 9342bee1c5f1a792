/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { printf("%c\n", execname[0]); exit(0); }
