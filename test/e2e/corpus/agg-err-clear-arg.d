BEGIN
{
	@a = count();
	clear(5);
}
