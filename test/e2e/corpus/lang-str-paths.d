/* flags: -q */
BEGIN
{
	printf("%s %s\n", basename("/a/b/c.d"), dirname("/a/b/c.d"));
	exit(0);
}
