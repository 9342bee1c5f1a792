/* flags: -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
union u { int a; };
BEGIN { trace(offsetof(union u, nope)); exit(0); }
