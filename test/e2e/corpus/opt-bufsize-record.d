/* flags: -q -b 64 */
/* A buffer that cannot hold the largest record (a 256-byte string) refuses the enabling, as the
   reference does (it accepts trace(execname) from 288 bytes). */
BEGIN
{
	trace(execname);
	exit(0);
}
