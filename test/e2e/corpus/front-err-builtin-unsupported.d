/* A D built-in variable this system does not provide is named as such. */
BEGIN
{
	trace(ipl);
}
