/* flags: -q */
BEGIN
{
	printf("%d\n", *&curthread->pid == curthread->pid);
	printf("%d\n", (*curthread).tgid == pid);
	printf("%d\n", (*curthread->real_parent).tgid == ppid);
	exit(0);
}
