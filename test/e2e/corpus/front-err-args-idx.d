/* flags: -xerrtags */
syscall::write:entry
{
	trace(args[7]);
}
