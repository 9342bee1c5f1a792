/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { printf("%d %d %d %d %x %x %x %x\n", O_RDONLY, O_WRONLY, O_RDWR, O_ACCMODE, O_CREAT, O_TRUNC, O_APPEND, O_NONBLOCK); exit(0); }
