/* flags: -b 50 */
/* A principal buffer smaller than DTrace for Linux's least (64 bytes) refuses the enabling,
   after the match report, with the reference's words and status. */
BEGIN
{
	trace(1);
	exit(0);
}
