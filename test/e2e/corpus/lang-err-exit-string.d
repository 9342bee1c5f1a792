/* flags: -xerrtags */
BEGIN
{
	exit("x");
}
