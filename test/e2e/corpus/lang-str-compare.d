/* flags: -q */
BEGIN
{
	printf("%d %d %d %d\n", "abc" < "abd", "b" > "a", "x" == "x", "x" != "y");
	exit(0);
}
