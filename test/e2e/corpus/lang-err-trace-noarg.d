/* flags: -xerrtags */
BEGIN
{
	trace();
}
