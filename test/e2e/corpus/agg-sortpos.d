/* flags: -q -x aggsortpos=1 */
/* aggsortpos: printa() of several aggregations sorts by the second one's values */
BEGIN
{
	@n["a"] = count();
	@n["b"] = count();
	@n["b"] = count();
	@n["c"] = count();
	@n["c"] = count();
	@n["c"] = count();
	@total["a"] = sum(300);
	@total["b"] = sum(100);
	@total["c"] = sum(200);
	printa("%s %@d %@d\n", @n, @total);
	exit(0);
}
