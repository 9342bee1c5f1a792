/* An associative array must be assigned before it is read. */
BEGIN
{
	trace(counts["x"]);
}
