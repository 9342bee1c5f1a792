/* flags: -q */
BEGIN
{
	printf("[%d] [%d] [%d] [%d] [%d]\n", index("hello", "l"), index("hello", "z"), index("hello", ""), index("", ""), index("hello", "l", 3));
	printf("[%d] [%d] [%d]\n", index("hello", "", 10), index("aaab", "aab"), index("hello", "l", -5));
	exit(0);
}
