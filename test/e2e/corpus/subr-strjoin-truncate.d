/* flags: -q -x strsize=16 */
/* A joined string longer than strsize is cut at strsize characters, as DTrace for Linux cuts it
   (output taken from the reference), instead of an out-of-scratch fault. */
dtrace:::BEGIN
{
	printf("[%s]\n", strjoin("abcdefgh", "ijklmnop"));
}

dtrace:::BEGIN
{
	printf("after\n");
	exit(0);
}
