/* flags: -xerrtags */
{
	trace(1);
}
