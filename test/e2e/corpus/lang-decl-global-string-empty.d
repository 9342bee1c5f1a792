/* flags: -q */
string s;

BEGIN
{
	printf("[%s]\n", s);
	exit(0);
}
