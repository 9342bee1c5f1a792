/* flags: -xerrtags */
/*
 * An associative array keyed by a pointer to a type this system does not have reads as an
 * array dimension expression and fails to parse, as in DTrace: the message names the type.
 */
int last_seen[widget_handle_t *];

BEGIN
{
	exit(0);
}
