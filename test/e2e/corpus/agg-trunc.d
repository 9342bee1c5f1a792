/* flags: -q */
/* trunc(): keep the n highest values, the n lowest for negative n, nothing without n */
BEGIN
{
	@top[1] = sum(10);
	@top[2] = sum(60);
	@top[3] = sum(30);
	@top[4] = sum(50);
	@top[5] = sum(20);
	@low["a"] = sum(5);
	@low["b"] = sum(1);
	@low["c"] = sum(3);
	@none["x"] = count();
	@none["y"] = count();
	@after = count();
	exit(0);
}
END
{
	trunc(@top, 2);
	trunc(@low, -2);
	trunc(@none);
}
