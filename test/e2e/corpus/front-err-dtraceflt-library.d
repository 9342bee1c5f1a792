/* flags: -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
BEGIN { trace(DTRACEFLT_LIBRARY); exit(0); }
