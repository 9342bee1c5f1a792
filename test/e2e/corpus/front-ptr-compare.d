/* flags: -q */
BEGIN
{
	printf("%d %d %d\n", curthread != 0, curthread == curthread, curthread->real_parent != curthread);
	printf("%d\n", (void *)curthread == (void *)curthread);
	exit(0);
}
