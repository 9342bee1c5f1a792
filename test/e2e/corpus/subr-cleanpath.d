/* flags: -q -x strsize=32 */
BEGIN
{
	printf("[%s] [%s] [%s] [%s]\n", cleanpath("/foo/bar/../baz"), cleanpath("/a/./b//c"), cleanpath("/a/b/.."), cleanpath("/../a"));
}

BEGIN
{
	printf("[%s] [%s] [%s] [%s]\n", cleanpath("/foo/..bar/.x"), cleanpath("abc/"), cleanpath(""), cleanpath("a/.."));
	exit(0);
}
