/* flags: -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
BEGIN { printf("%d\n", sizeof (vmlinux`struct task_struct) > 0); exit(0); }
