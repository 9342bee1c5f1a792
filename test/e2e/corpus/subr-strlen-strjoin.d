/* flags: -q */
BEGIN
{
	printf("[%d] [%d]\n", strlen(""), strlen("hello"));
	printf("[%s] [%s] [%s] [%s]\n", strjoin("", ""), strjoin("a", ""), strjoin("", "b"), strjoin(strjoin("a", "b"), "c"));
	exit(0);
}
