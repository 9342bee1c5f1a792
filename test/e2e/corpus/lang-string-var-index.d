/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { s = "hello"; printf("%c%c\n", s[1], s[4]); exit(0); }
