/* flags: -q */
/* The D library names the error numbers, with Linux's values, for errno and return values. */
BEGIN
{
	err[ENOENT] = "no such file";
	err[EAGAIN] = "try again";
	printf("%d %d %d %d %s %s\n", EPERM, EAGAIN, EWOULDBLOCK, ECONNREFUSED,
	    err[2], err[EWOULDBLOCK]);
	exit(0);
}

syscall::openat:return
/errno == ENOENT/
{
	trace(errno);
}
