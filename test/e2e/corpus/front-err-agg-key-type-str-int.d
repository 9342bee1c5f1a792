/* flags: -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
BEGIN { @a[execname] = count(); @a[pid] = count(); exit(0); }
