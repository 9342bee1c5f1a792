/* flags: -xerrtags */
BEGIN
{
	trace(1 / 0);
}
