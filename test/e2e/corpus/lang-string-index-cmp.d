/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { s = "hello"; printf("%d\n", s[0] == 104); exit(0); }
