/* flags: -q -w */
/* chill(ns) spins for at least ns nanoseconds. */
BEGIN
{
	start = timestamp;
	chill(50000000);
	printf("%d\n", timestamp - start >= 50000000);
	exit(0);
}
