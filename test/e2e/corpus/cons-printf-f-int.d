/* flags: -q */
/* D has no floating-point values at run time: %f of an integer is a compile error. */
BEGIN
{
	printf("%f\n", 3);
	exit(0);
}
