/* flags: -q */
/* %k formats a stack() record: an integer argument is refused. */
BEGIN
{
	printf("%k\n", 0xffffffff81000000);
	exit(0);
}
