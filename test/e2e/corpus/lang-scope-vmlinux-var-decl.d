/* flags: -q -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
vmlinux`struct task_struct *t;
BEGIN { t = curthread; printf("%d\n", t->pid == pid); exit(0); }
