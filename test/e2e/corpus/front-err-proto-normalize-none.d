/* flags: -xerrtags */
/* Agrees with the reference DTrace (message, tag and exit status). */
BEGIN { @a = count(); normalize(@a); }
