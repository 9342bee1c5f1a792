/* flags: -q */
BEGIN
{
	printf("%d\n", curthread->se.load.weight > 0);
	printf("%d\n", offsetof(struct task_struct, se) <= offsetof(struct task_struct, comm) || 1);
	exit(0);
}
