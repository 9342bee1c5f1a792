/* flags: -b59 */
/*
 * A buffer too small for one record is refused once the probes are matched (expected output
 * from Oracle DTrace 2.0.1).
 */
BEGIN
{
	exit(0);
}
