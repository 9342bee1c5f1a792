/* flags: -xerrtags */
BEGIN
{
	5++;
}
