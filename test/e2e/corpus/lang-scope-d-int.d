/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { printf("%d %d\n", sizeof (D`int), sizeof (D`long)); exit(0); }
