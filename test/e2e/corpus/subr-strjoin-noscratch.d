/* flags: -q -x strsize=16 */
BEGIN
{
	printf("[%s]\n", strjoin("abcdefgh", "ijklmnop"));
}

BEGIN
{
	printf("after\n");
	exit(0);
}
