/* flags: -q */
BEGIN
{
	printf("[%d] [%d] [%d] [%d] [%d]\n", rindex("hello", "l"), rindex("hello", "z"), rindex("hello", ""), rindex("hello", "l", 2), rindex("hello", "l", -1));
	printf("[%d] [%d] [%d]\n", rindex("hello", "", -1), rindex("abcabc", "abc", 100), rindex("abcabc", "abc", 2));
	exit(0);
}
