/* flags: -q */
/* printa() of several aggregations: one line per key, a %@ per aggregation */
BEGIN
{
	@n["a"] = count();
	@n["b"] = count();
	@n["b"] = count();
	@total["a"] = sum(100);
	@total["b"] = sum(50);
	@total["c"] = sum(7);
	printa("%s %@d %@d\n", @n, @total);
	exit(0);
}
