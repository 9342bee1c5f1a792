/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { printf("%d\n", curpsinfo->pr_pid == pid); exit(0); }
