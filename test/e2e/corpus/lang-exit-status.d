/* flags: -q */
BEGIN
{
	exit(3);
}
