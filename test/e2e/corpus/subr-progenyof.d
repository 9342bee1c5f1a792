/* flags: -q */
BEGIN
{
	printf("[%d] [%d] [%d]\n", progenyof(pid), progenyof(1), progenyof(-1));
	exit(0);
}
