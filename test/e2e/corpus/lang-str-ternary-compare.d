/* flags: -q */
BEGIN
{
	s = "b";
	printf("%s\n", s > "a" ? "after" : "before");
	exit(0);
}
