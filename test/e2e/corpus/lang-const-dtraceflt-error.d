/* flags: -q */
/* Agrees with the reference DTrace on stdout and exit status; the fault line on stderr keeps illumos DTrace's form. */
BEGIN { x = 0; trace(1 / x); } ERROR { printf("fault %s\n", arg4 == DTRACEFLT_DIVZERO ? "divzero" : "other"); exit(0); }
