/* flags: -q */
/* A system call probe fires deep in the kernel's system call path: it has kernel frames. */
syscall:::entry
{
	@[stackdepth > 0 && caller != 0 ? "stackdepth > 0, caller set" : "no kernel stack"] = count();
}

tick-200ms
{
	printa("%s\n", @);
	exit(0);
}
