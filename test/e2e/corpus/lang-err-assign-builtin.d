/* flags: -xerrtags */
BEGIN
{
	pid = 5;
}
