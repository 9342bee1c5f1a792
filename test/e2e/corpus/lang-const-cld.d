/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { printf("%d %d %d %d %d %d\n", CLD_EXITED, CLD_KILLED, CLD_DUMPED, CLD_TRAPPED, CLD_STOPPED, CLD_CONTINUED); exit(0); }
