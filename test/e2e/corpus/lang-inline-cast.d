/* flags: -q */
/*
 * An integer constant inline is its constant, of the constant's own type: the declared char
 * does not truncate 300 (reference DTrace for Linux 2.0.1 agrees).
 */
inline char small = 300;

BEGIN
{
	printf("%d %d\n", small, sizeof(small));
	exit(0);
}
