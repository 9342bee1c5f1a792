/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { printf("%d %d %d %d\n", EPERM, ENOENT, EINVAL, EAGAIN); exit(0); }
