/* flags: -q -v */
dtrace:::BEGIN
{
	printf("%d\n", curthread->pid > 0);
	exit(0);
}
