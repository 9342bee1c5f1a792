/* flags: -xerrtags */
BEGIN
{
	s = "x";
	y = s != 1;
}
