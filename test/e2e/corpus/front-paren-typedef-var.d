/* flags: -q */
/* `code` and `bool` are kernel typedefs; used as variables, a parenthesis holding them is an expression. */
BEGIN
{
	code = 3;
	bool = 5;
	printf("%d %d %d\n", (code * 2), (code), (bool * code));
	exit(0);
}
