/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { x = (D`int)1; printf("%d\n", sizeof(x)); exit(0); }
