/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { printf("%x %x %x %x %x %x %x\n", O_EXCL, O_NOCTTY, O_DSYNC, O_DIRECTORY, O_NOFOLLOW, O_CLOEXEC, O_SYNC); exit(0); }
