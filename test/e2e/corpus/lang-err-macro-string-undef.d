/* flags: -xerrtags one */
BEGIN
{
	trace($$2);
}
