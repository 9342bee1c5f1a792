/* flags: -q */
BEGIN
{
	printf("%d\n", sizeof (`vmlinux`struct file) == sizeof (struct file));
	printf("%d\n", sizeof (vmlinux`struct task_struct) == sizeof (struct task_struct));
	this->t = (`vmlinux`struct task_struct *)curthread;
	printf("%d\n", this->t->pid == tid);
	exit(0);
}
