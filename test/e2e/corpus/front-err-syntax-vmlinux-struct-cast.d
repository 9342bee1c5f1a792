/* flags: -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
BEGIN { x = (vmlinux`struct task_struct *)0; exit(0); }
