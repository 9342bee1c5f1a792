/* flags: -q */
/* timestamp holds still within a clause, as in DTrace: every read gives the same value. */
BEGIN
{
	t = timestamp;
	x = 0;
	x += 1;
	printf("%d %d\n", timestamp == t, timestamp - timestamp);
	exit(0);
}
