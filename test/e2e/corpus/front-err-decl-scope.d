/* flags: -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
#pragma D option quiet
int `xyz;
BEGIN { exit(1); }
