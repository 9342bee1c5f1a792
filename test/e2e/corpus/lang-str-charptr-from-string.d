/* flags: -q -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
BEGIN { p = (char *)"abc"; exit(0); }
