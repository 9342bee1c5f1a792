/* flags: -q -xerrtags */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { s = "b"; printf("%s\n", s == "a" ? "A" : s == "b" ? "B" : "C"); exit(0); }
