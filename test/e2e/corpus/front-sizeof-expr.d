/* flags: -q */
BEGIN
{
	printf("%d %d %d\n", sizeof(curthread->pid), sizeof(curthread->comm), sizeof(curthread));
	printf("%d %d\n", sizeof("abc"), sizeof (1 + 2));
	exit(0);
}
