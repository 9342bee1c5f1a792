/* flags: -q */
/* proc:::exec-success has no arguments; exit and create have one. */
proc:::create, proc:::exec-success, proc:::exit
{
}

BEGIN
{
	printf("ok\n");
	exit(0);
}
