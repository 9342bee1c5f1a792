/* flags: -q -xerrtags */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { printf("%d\n", ((struct vmlinux`task_struct *)curthread)->pid == pid); exit(0); }
