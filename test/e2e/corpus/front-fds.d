/* flags: -q */
/*
 * fds[] (DTrace's io.d): the current process's files by descriptor. BEGIN runs in dtrace itself,
 * whose standard output is open; descriptors that are not open read "<none>" and 0.
 */
BEGIN
{
	printf("%d [%s] [%s] %d %d\n", fds[1].fi_fs != "<none>", fds[-1].fi_name,
	    fds[1000000].fi_fs, fds[-1].fi_offset, fds[1000000].fi_oflags);
	exit(0);
}
