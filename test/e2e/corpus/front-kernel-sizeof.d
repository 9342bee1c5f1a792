/* flags: -q */
/* Agrees with the reference DTrace (output and exit status; it refuses vmlinux`struct x, a syntax error). */
BEGIN
{
	printf("%d %d %d\n", sizeof(struct list_head), offsetof(struct list_head, prev), sizeof(struct callback_head));
	printf("%d\n", sizeof(struct task_struct) == sizeof(struct vmlinux`task_struct));
	printf("%d\n", sizeof(struct file) == sizeof(struct vmlinux`file));
	exit(0);
}
