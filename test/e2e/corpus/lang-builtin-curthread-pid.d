/* flags: -q */
BEGIN
{
	printf("%d\n", curthread->pid == tid);
	exit(0);
}
