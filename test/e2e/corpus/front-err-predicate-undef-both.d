/* flags: -xerrtags */
/* When the actions too name an unknown variable, the predicate's error is the one reported. */
BEGIN
/not_defined_anywhere == 0/
{
	x = neither_is_this;
}
