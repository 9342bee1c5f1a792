/* flags: -q */
/* normalize(): printed values divided by the factor, with and without printa formats */
BEGIN
{
	@bytes["read"] = sum(4000);
	@bytes["write"] = sum(1500);
	@mean = avg(100);
	@mean = avg(300);
	@calls = count();
	@calls = count();
	@calls = count();
	@calls = count();
	normalize(@calls, 2);
	printa("calls/2 %@d\n", @calls);
	exit(0);
}
END
{
	normalize(@bytes, 1000);
	normalize(@mean, 10);
}
