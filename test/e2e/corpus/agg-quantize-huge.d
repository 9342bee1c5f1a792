/* flags: -q */
/* quantize() of values at and above 2^62 and of the most negative powers lands in the top buckets (expected output taken from the reference DTrace for Linux). */
BEGIN
{
	@q = quantize(1 << 62); @q = quantize((1 << 62) + 5); @q = quantize(0x7fffffffffffffff);
	@q = quantize(-(1 << 62)); @q = quantize(1); @q = quantize(-0x7fffffffffffffff - 1);
	exit(0);
}
