/* flags: -xerrtags */
BEGIN
{
	trace($1);
}
