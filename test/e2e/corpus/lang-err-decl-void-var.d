/* flags: -xerrtags */
void v;

BEGIN
{
	exit(0);
}
