/* flags: -xerrtags */
BEGIN
{
	trace(strjoin(1, "a"));
}
