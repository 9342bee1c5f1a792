/* flags: -q -w */
/* breakpoint() cannot apply on Linux: refused when compiling. */
BEGIN
{
	breakpoint();
}
