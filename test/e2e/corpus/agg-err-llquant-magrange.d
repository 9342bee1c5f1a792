BEGIN
{
	@ = llquantize(1, 10, 3, 2, 10);
}
