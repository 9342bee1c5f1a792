/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { x = (D`char)257; printf("%d\n", x); exit(0); }
