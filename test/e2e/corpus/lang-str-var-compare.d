/* flags: -q */
BEGIN
{
	s = "hello";
	printf("%d %d\n", s == "hello", s < "help");
	exit(0);
}
