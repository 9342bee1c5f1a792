/* flags: -xerrtags */
BEGIN
{
	NULL = 1;
}
