/* flags: -q */
BEGIN
{
	printf("%d\n", &curthread->tgid - &curthread->pid);
	printf("%d\n", (char *)&curthread->tgid - (char *)&curthread->pid);
	printf("%d\n", *(&curthread->pid + 1) == curthread->tgid);
	printf("%d\n", (&curthread->pid)[1] == curthread->tgid);
	exit(0);
}
