/* flags: -q */
/* A store past the end of a global array is an invalid address, as dtrace_canstore finds it: */
/* the ERROR probe fires with the fault (arg4, DTRACEFLT_BADADDR is 1) and the clause is abandoned. */
int arr[4];

BEGIN
{
	i = 400;
	arr[i] = 1;
	printf("not reached\n");
}

dtrace:::ERROR
{
	printf("fault %d in action %d\n", arg4, arg2);
}

BEGIN
{
	printf("after\n");
	exit(0);
}
