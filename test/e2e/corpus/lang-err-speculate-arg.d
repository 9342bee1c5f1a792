/* flags: -xerrtags */
BEGIN
{
	speculate("x");
}
