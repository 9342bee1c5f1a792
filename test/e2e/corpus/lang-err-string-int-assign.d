/* flags: -xerrtags */
BEGIN
{
	x = "a";
	x = 1;
}
