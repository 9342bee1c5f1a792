/* flags: -q */
BEGIN
{
	printf("%d %d\n", id > 0, epid > 0);
	exit(0);
}
