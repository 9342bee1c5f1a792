/* flags: -q -w */
/* panic() cannot apply on Linux: refused when compiling. */
BEGIN
{
	panic();
}
