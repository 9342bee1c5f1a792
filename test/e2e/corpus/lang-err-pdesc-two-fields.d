/* flags: -q */
dtrace::BEGIN
{
	printf("ok\n");
	exit(0);
}
