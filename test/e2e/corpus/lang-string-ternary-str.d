/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { x = 1; s = x ? "one" : "other"; t = s == "one" ? strjoin(s, "!") : s; printf("%s\n", t); exit(0); }
