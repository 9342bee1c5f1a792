/* flags: -q */
/* Agrees with the reference DTrace (output and exit status; it refuses vmlinux`struct x, a syntax error). */
BEGIN
{
	printf("%d\n", sizeof (struct vmlinux`file) == sizeof (struct file));
	printf("%d\n", sizeof (struct vmlinux`task_struct) == sizeof (struct task_struct));
	this->t = (struct vmlinux`task_struct *)curthread;
	printf("%d\n", this->t->pid == tid);
	exit(0);
}
