/* flags: -xerrtags */
BEGIN
/2 > .5e3f/
{
	exit(0);
}
