/* flags: -q */
/*
 * A block comment.
 */
BEGIN /* inside */
{
	printf("%d\n", 1 /* mid-expression */ + 1);
	exit(0);
}
