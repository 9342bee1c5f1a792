/* flags: -q -w */
/* More than half a second of chill is an illegal operation, at no DIF offset. */
BEGIN
{
	chill(600000000);
	printf("not reached\n");
}

ERROR
{
	printf("%d %d %d\n", arg2, arg3, arg4);
	exit(0);
}
