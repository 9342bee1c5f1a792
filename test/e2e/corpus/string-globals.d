/* flags: -q */
BEGIN
{
	s = "foo";
	t = s;
	s = "barbaz";
	printf("%s %s\n", s, t);
	exit(0);
}
