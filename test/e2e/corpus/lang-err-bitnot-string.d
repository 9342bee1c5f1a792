/* flags: -xerrtags */
BEGIN
{
	trace(~"a");
}
