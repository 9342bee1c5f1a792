/* flags: -q */
/* As DTrace's lexer decodes escapes into a C string, a NUL ends a string constant. */
BEGIN
{
	printf("[%s] %d %d [%s]\n", "a\0b", sizeof ("a\0b"), strlen("x\000yz"), "\x00gone");
	exit(0);
}
