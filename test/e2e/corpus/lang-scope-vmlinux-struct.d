/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { printf("%d\n", sizeof (struct vmlinux`task_struct) > 0); exit(0); }
