/* flags: -xerrtags */
BEGIN
{
	trace(offsetof(int, x));
}
