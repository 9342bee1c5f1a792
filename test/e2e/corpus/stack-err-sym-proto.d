BEGIN
{
	sym();
}
