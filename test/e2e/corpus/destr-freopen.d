/* flags: -q -w */
/* freopen() (destructive) sends what follows, the rest of the record included, to the file it
   names, opened for appending, as the reference DTrace for Linux does; system() shows the file. */
BEGIN
{
	system("rm -f /tmp/dtrace-freopen.%d", pid);
	printf("one\n");
	freopen("/tmp/dtrace-freopen.%d", pid);
	printf("two\n");
	trace(3);
	printf("\n");
}

BEGIN
{
	system("echo file:; cat /tmp/dtrace-freopen.%d; rm -f /tmp/dtrace-freopen.%d", pid, pid);
	exit(0);
}
