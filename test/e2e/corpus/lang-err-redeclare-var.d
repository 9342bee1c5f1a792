/* flags: -xerrtags */
int x;
long x;

BEGIN
{
	exit(0);
}
