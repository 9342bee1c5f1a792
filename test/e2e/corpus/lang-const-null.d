/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { printf("%d\n", NULL); exit(0); }
