/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { printf("%d\n", sizeof (D`uint64_t)); exit(0); }
