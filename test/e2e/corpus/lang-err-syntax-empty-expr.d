/* flags: -xerrtags */
BEGIN
{
	x = ;
}
