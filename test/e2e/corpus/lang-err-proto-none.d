/* flags: -xerrtags */
BEGIN
{
	trace(strlen());
}
