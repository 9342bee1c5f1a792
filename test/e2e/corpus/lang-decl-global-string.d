/* flags: -q */
string s;

BEGIN
{
	s = "abc";
	printf("%s\n", s);
	exit(0);
}
