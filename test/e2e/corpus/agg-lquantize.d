/* flags: -q */
/* lquantize(): linear buckets with a step, the underflow and overflow rows, an increment */
BEGIN
{
	@l = lquantize(-5, 0, 100, 10);
	@l = lquantize(0, 0, 100, 10);
	@l = lquantize(9, 0, 100, 10);
	@l = lquantize(10, 0, 100, 10);
	@l = lquantize(35, 0, 100, 10);
	@l = lquantize(35, 0, 100, 10);
	@l = lquantize(99, 0, 100, 10);
	@l = lquantize(100, 0, 100, 10);
	@l = lquantize(5000, 0, 100, 10);
	@i = lquantize(3, -2, 4, 1, 5);
	exit(0);
}
