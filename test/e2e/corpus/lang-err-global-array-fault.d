/* flags: -q */
/* A store past the end of a global array is an invalid address, as dtrace_canstore finds it. */
int arr[4];

BEGIN
{
	i = 400;
	arr[i] = 1;
}

BEGIN
{
	printf("after\n");
	exit(0);
}
