/* flags: -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
BEGIN { i = 1; x = i ? trace(1) : 2; exit(0); }
