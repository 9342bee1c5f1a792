/* flags: -q -xerrtags */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { printf("%d %d\n", "abc" < "abd", "b" > "abc"); exit(0); }
