/* flags: -q */
/* copyoutstr() is a destructive subroutine: without -w, tracing is not enabled. */
syscall::getppid:entry
{
	copyoutstr("x", arg0, 2);
}
