/* flags: -q */
/* Agrees with the reference DTrace on stdout and exit status; the fault line on stderr keeps illumos DTrace's form. */
BEGIN { trace(*(int *)8); } ERROR /arg4 == DTRACEFLT_BADADDR/ { printf("badaddr at %x\n", arg5); exit(0); }
