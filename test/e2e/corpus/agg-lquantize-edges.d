/* flags: -q */
/* lquantize() puts a value at a bucket edge in the bucket it starts (expected output taken from the reference DTrace for Linux). */
BEGIN
{
	@l = lquantize(20, 0, 100, 10); @l = lquantize(19, 0, 100, 10); @l = lquantize(10, 0, 100, 10);
	@l = lquantize(9, 0, 100, 10); @l = lquantize(0, 0, 100, 10); @l = lquantize(-1, 0, 100, 10);
	@l = lquantize(99, 0, 100, 10); @l = lquantize(100, 0, 100, 10);
	exit(0);
}
