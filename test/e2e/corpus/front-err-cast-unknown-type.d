/* A cast to a type this system lacks is a syntax error, as in DTrace, that names the type. */
BEGIN
{
	x = (uf_entry_t *)arg0;
}
