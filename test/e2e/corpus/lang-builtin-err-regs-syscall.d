/* Only profile probes have interrupted kernel registers here (no kprobes). */
syscall::getppid:entry
{
	trace(regs[R_PC]);
}
