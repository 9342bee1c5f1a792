/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { printf("%d\n", sizeof (vmlinux`uint32_t)); exit(0); }
