/* flags: -xerrtags */
BEGIN
{
	trace(this->nosuch);
}
