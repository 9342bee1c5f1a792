/* flags: -q -x strsize=16 */
/* A joined string longer than strsize is cut there (strsize - 1 characters), as DTrace for
   Linux cuts it (its output: the first strsize characters), instead of an out-of-scratch fault. */
dtrace:::BEGIN
{
	printf("[%s]\n", strjoin("abcdefgh", "ijklmnop"));
}

dtrace:::BEGIN
{
	printf("after\n");
	exit(0);
}
