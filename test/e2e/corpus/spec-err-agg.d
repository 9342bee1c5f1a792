BEGIN
{
	speculate(1);
	@counts = count();
}
