/* flags: -q */
/* quantize(): power-of-two buckets, negatives, zero, and the increment argument */
BEGIN
{
	@q = quantize(0);
	@q = quantize(1);
	@q = quantize(2);
	@q = quantize(3);
	@q = quantize(7);
	@q = quantize(8);
	@q = quantize(1000);
	@q = quantize(-1);
	@q = quantize(-3);
	@w["weighted"] = quantize(5, 3);
	@w["weighted"] = quantize(64, 10);
	exit(0);
}
