/* flags: -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
BEGIN { @a = count(); @a *= 2; exit(0); }
