/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { x = *(int *)0; }
ERROR { printf("%d %d\n", arg4 == DTRACEFLT_BADADDR, arg5); exit(0); }
