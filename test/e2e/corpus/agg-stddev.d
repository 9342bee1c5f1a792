/* flags: -q */
/* stddev(): integer square root of the variance, kept with 128-bit sums of squares */
BEGIN
{
	@sd["zero"] = stddev(0);
	@sd["zero"] = stddev(0);
	@sd["small"] = stddev(0x10);
	@sd["small"] = stddev(0x20);
	@sd["large"] = stddev(0x80000000);
	@sd["large"] = stddev(0x100000000);
	@sd["larger"] = stddev(0x100000000);
	@sd["larger"] = stddev(0x200000000);
	@sd["three"] = stddev(2);
	@sd["three"] = stddev(4);
	@sd["three"] = stddev(6);
	@sd["negative"] = stddev(-10);
	@sd["negative"] = stddev(-30);
	printa("%-10s %9@x\n", @sd);
	exit(0);
}
