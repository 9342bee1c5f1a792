/* flags: -q */
/* Linux has no zones: every thread is in the global zone, as DTrace for Linux reports. */
BEGIN
{
	printf("%s %d\n", zonename, zonename == "global");
	exit(0);
}
