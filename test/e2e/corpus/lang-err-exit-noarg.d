/* flags: -xerrtags */
BEGIN
{
	exit();
}
