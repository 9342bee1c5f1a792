/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { printf("%s\n", stringof(execname + 2)); exit(0); }
