/* flags: -q */
BEGIN
{
	printf("%d %d\n", $sid > 0, $pgid > 0);
	exit(0);
}
