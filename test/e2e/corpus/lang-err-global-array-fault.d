/* flags: -q */
/* A store past the end of a global array is DTrace for Linux's index-out-of-bounds fault: */
/* the ERROR probe fires with the fault (arg4, DTRACEFLT_BADINDEX is 11) and the clause is abandoned. */
/* As dtrace(1) consumes BEGIN's buffer, every BEGIN clause's output comes before the ERROR clause's (reference). */
int arr[4];

BEGIN
{
	i = 400;
	arr[i] = 1;
	printf("not reached\n");
}

dtrace:::ERROR
{
	printf("fault %d\n", arg4);
}

BEGIN
{
	printf("after\n");
	exit(0);
}
