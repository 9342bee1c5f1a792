/* flags: -q */
/* printa() with a format: keys are printf arguments, %@ the value */
BEGIN
{
	@bytes["eth0", 1] = sum(1500);
	@bytes["eth0", 2] = sum(64);
	@bytes["lo", 1] = sum(300);
	printa("%-6s %d %@8d|\n", @bytes);
	exit(0);
}
