/* flags: -q */
BEGIN
{
	printf("%d %d\n", "abc" <= "abc", "abc" >= "abcd");
	exit(0);
}
