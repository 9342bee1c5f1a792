/* flags: -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
typedef int `x;
BEGIN { exit(0); }
