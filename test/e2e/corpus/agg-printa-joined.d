/* flags: -q */
/* printa() of several aggregations without a format: the keys, then each value */
BEGIN
{
	@n["a"] = count();
	@n["b"] = count();
	@n["b"] = count();
	@t["a"] = sum(100);
	@t["b"] = sum(50);
	@t["c"] = sum(-7);
	printa(@n, @t);
	exit(0);
}
