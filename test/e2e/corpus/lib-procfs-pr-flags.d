/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { printf("%x %x %x\n", PR_ISTOP, PR_DSTOP, PR_IDLE); exit(0); }
