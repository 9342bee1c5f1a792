/* flags: -xerrtags */
BEGIN
{
	3 = 4;
}
