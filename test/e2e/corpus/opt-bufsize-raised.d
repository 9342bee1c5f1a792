/* flags: -q -b 1k */
/* A bufsize that is not a power-of-two number of pages is raised to the next, and dtrace says so
   as the reference DTrace for Linux does ("bufsize increased to 4096"); tracing goes on. */
BEGIN
{
	printf("traced\n");
	exit(0);
}
