/* flags: -xerrtags */
BEGIN
{
	x = 1;
	trace(x.y);
}
