/* flags: -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
BEGIN
{
	@a = lquantize(1, 0, 10);
}

BEGIN
{
	@a = quantize(1);
}
