/* flags: -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
translator lwpsinfo_t < struct task_struct *T >
{
	pr_flag = (T->state & __TASK_STOPPED) ? PR_STOPPED : 0;
	pr_lwpid = T->pid;
};
BEGIN
{
	xlate < lwpsinfo_t * > (curthread);
	exit(0);
}
