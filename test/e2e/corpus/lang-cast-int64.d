/* flags: -q */
BEGIN
{
	printf("%d %d\n", (int64_t)-5 / 2, (uint64_t)10 / 3);
	exit(0);
}
