/* flags: -q */
BEGIN
{
	printf("%d %d %d %d\n", "abc" == "abc", "abc" < "abd", "b" > "a", "abc" != "abc");
	exit(0);
}
