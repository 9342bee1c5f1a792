/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { printf("%d %d %d %d\n", SIGKILL, SIGTERM, SIGUSR1, SIGCHLD); exit(0); }
