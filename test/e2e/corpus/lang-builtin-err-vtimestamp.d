/* Linux keeps no per-thread virtual time that a probe can read. */
BEGIN
{
	trace(vtimestamp);
}
