/* flags: -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
BEGIN { @b = count(); @a[@b] = count(); exit(0); }
