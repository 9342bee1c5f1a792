/* flags: -xerrtags */
BEGIN
{
	trace(strlen("a", "b"));
}
