/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { s = "hello"; printf("%s\n", stringof(s + 1)); exit(0); }
