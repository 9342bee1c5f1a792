/* flags: -q */
/* freopen() is destructive: without -w tracing is not enabled. */
BEGIN
{
	printf("one\n");
	freopen("/dev/%s", "stderr");
	printf("two\n");
	trace(3);
	exit(0);
}

END
{
	printf("end\n");
	@a = count();
}
