/* flags: -xerrtags */
BEGIN
{
	x[0] = 1;
	x = 2;
}
