/* flags: -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
BEGIN { @a[1] = count(); @a[1] = sum(1); exit(0); }
