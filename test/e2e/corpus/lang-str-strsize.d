/* flags: -q */
#pragma D option strsize=8

BEGIN
{
	s = "abcdefghijkl";
	printf("%s\n", s);
	exit(0);
}
