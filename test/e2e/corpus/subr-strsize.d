/* flags: -q -x strsize=16 */
BEGIN
{
	printf("[%d] [%d] [%d]\n", strlen("abcdefghijklmnopqrstuvwxyz"), strlen("abcdefghijklmno"), strlen("abcdefghijklmnop"));
	printf("[%s] [%s]\n", toupper("abcdefghijklmnopqrstuvwxyz"), strjoin("abcdefg", "hijklm"));
	exit(0);
}
