BEGIN
{
	@[ustack(5, -1)] = count();
}
