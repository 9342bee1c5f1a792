/* flags: -q */
BEGIN
{
	printf("%s|%s\n", curthread->comm, execname);
	exit(0);
}
