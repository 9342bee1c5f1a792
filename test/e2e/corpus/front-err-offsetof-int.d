/* flags: -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
BEGIN { trace(offsetof(int, nope)); exit(0); }
