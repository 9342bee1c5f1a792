/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { char *p; p = "abc"; printf("%s\n", stringof(p)); exit(0); }
