/* flags: -q */
BEGIN
{
	printf("%d %d\n", curthread->real_parent->tgid == ppid, curthread->real_parent == curthread->parent);
	exit(0);
}
