/* flags: -q */
/* A fault in a predicate is action 0; tracing goes on with the next clause. */
BEGIN
{
	y = 0;
}

BEGIN
/ 10 / y /
{
	printf("not reached\n");
}

BEGIN
{
	printf("next clause\n");
}

ERROR
{
	printf("ERROR: epid %d action %d fault %d, %s:%s id %d\n", arg1, arg2, arg4, probeprov, probename, id);
}

END
{
	printf("end\n");
}

BEGIN
{
	exit(0);
}
