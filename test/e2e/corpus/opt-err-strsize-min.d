/* flags: -xstrsize=1 */
/* strsize must leave room for a character and its NUL (refused as by Oracle DTrace 2.0.1). */
BEGIN
{
	exit(0);
}
