/* flags: -q */
/* clear(): values go back to zero, keys stay; printa() later shows the zeros */
BEGIN
{
	@c["a"] = count();
	@c["b"] = count();
	@c["b"] = count();
	@k = sum(42);
	printa("first %s %@d\n", @c);
	clear(@c);
	clear(@k);
}
tick-200ms
{
	@c["b"] = count();
	printa("second %s %@d\n", @c);
	exit(0);
}
