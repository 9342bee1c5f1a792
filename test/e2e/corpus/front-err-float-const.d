/* flags: -xerrtags */
/* DTrace's lexer refuses floating-point constants before any clause is checked. */
BEGIN
{
	x = nosuchvariable;
}

BEGIN
{
	printf("%e\n", 1.5);
}
