/* flags: -q */
BEGIN
{
}

BEGIN
{
	exit(0);
}
