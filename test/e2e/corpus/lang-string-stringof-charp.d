/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { s = "hello"; p = (char *)s; printf("%s %c\n", stringof(p + 3), *p); exit(0); }
