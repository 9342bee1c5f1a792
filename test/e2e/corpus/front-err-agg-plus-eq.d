/* flags: -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
BEGIN { @a += 1; exit(0); }
