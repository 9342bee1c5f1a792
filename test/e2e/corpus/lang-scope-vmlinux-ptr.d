/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { t = (struct vmlinux`task_struct *)curthread; printf("%d\n", t->pid == pid); exit(0); }
