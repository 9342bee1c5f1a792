/* flags: -q -xerrtags */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { printf("%d\n", sizeof (D`int)); exit(0); }
