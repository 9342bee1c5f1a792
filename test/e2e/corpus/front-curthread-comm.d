/* flags: -q */
BEGIN
{
	printf("%d %d\n", curthread->comm == execname, stringof(curthread->comm) == execname);
	printf("%d\n", curthread->comm[0] != 0);
	exit(0);
}
