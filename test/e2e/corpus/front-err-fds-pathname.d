/* flags: -xerrtags */
BEGIN
{
	trace(fds[0].fi_pathname);
}
