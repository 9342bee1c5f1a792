/* flags: -xerrtags */
BEGIN
{
	timestamp++;
}
