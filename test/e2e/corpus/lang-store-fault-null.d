/* flags: -q */
/* A store to address 0 is refused at run time (invalid address); the next clause still runs. */
BEGIN
{
	*(int *)0 = 1;
	printf("not reached\n");
}

BEGIN
{
	printf("next clause\n");
	exit(0);
}
