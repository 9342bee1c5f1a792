/* flags: -q */
BEGIN
{
	x = 2;
	exit(x * 2);
}
