/* flags: -xerrtags */
BEGIN
{
	trace("a" == 1);
}
