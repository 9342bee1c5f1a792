/* flags: -q */
BEGIN
{
	printf("[%s] [%s] [%s]\n", strstr("hello world", "o w"), strstr("abc", ""), strstr("abcabc", "ca"));
	printf("[%s] [%s] [%s]\n", strchr("hello", 'l'), strrchr("hello", 'l'), strrchr("a/b/c", '/'));
	exit(0);
}
