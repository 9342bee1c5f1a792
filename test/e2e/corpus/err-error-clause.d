/* flags: -q */
/* A fault fires dtrace:::ERROR with arg1 = EPID, arg2 = action, arg4 = fault, arg5 = address;
   the ERROR clause's output comes first, then dtrace's own message. */
BEGIN
{
	x = *(int *)0;
}

ERROR
{
	printf("%d %d %d %d\n", arg1, arg2, arg4, arg5);
	exit(0);
}
