/* flags: -xerrtags */
BEGIN
{
	trace(5 % 0);
}
