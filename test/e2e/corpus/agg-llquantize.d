/* flags: -q */
/* llquantize(): log-linear buckets (factor 10, magnitudes 1 to 2, 10 steps each); expected output
   from the reference DTrace for Linux, whose buckets are symmetric about zero */
BEGIN
{
	@ll = llquantize(3, 10, 1, 2, 10);
	@ll = llquantize(10, 10, 1, 2, 10);
	@ll = llquantize(25, 10, 1, 2, 10);
	@ll = llquantize(29, 10, 1, 2, 10);
	@ll = llquantize(150, 10, 1, 2, 10);
	@ll = llquantize(999, 10, 1, 2, 10);
	@ll = llquantize(1000, 10, 1, 2, 10, 2);
	exit(0);
}
