/* flags: -q */
BEGIN
{
	s = "";
	printf("%d %d\n", s == "", strlen(s));
	exit(0);
}
