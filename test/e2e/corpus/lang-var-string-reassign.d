/* flags: -q */
BEGIN
{
	s = "first";
	s = "second";
	printf("%s\n", s);
	exit(0);
}
