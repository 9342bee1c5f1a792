/* flags: -xerrtags */
/* Agrees with the reference DTrace (message, tag and exit status). */
BEGIN { trace(substr("a", 1, 2, 3)); }
