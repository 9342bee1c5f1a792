/* flags: -q */
BEGIN
{
	s = strjoin("foo", "bar");
	printf("%s %d %s %d %d\n", s, strlen(s), substr(s, 2, 3), index(s, "ba"), rindex(s, "o"));
	exit(0);
}
