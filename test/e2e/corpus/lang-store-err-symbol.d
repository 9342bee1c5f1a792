/* flags: -xerrtags */
/* A kernel symbol is an lvalue but not a writable one. */
BEGIN
{
	`max_pfn++;
}
