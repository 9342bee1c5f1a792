/* flags: -q extra */
BEGIN
{
	exit(0);
}
