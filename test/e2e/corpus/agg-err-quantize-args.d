BEGIN
{
	@q = quantize(1, 2, 3);
}
