/* flags: -q -x aggzoom */
/* -x aggzoom: the largest bar fills 95% of the width (38 of 40), the others scale with it. */
BEGIN
{
	@q = quantize(1); @q = quantize(1); @q = quantize(4); @q = quantize(100);
	@l = lquantize(3, 0, 10, 2); @l = lquantize(5, 0, 10, 2); @l = lquantize(5, 0, 10, 2); @l = lquantize(5, 0, 10, 2);
	exit(0);
}
