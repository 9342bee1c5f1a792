/* flags: -xerrtags */
/* Agrees with the reference DTrace (message, tag and exit status). */
BEGIN { @a[1] = count(); trace(@a[1]); }
