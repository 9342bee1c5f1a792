/* flags: -q */
/* llquantize() with fewer steps per magnitude than the factor (10 and 5): each magnitude's
   first bucket is the power itself, then multiples of power*factor/steps (1, 2, 4, 6, 8, 10,
   20, ...). Expected output from the reference DTrace for Linux. */
BEGIN
{
	@ = llquantize(3, 10, 0, 3, 5);
	@ = llquantize(57, 10, 0, 3, 5);
	@ = llquantize(57, 10, 0, 3, 5);
	@ = llquantize(320, 10, 0, 3, 5, 4);
	@ = llquantize(9999, 10, 0, 3, 5);
	exit(0);
}
