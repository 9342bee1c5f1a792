/* flags: -q */
/* printa(@a) without a format: a blank line, then the entries sorted by value */
BEGIN
{
	@calls["read"] = count();
	@calls["write"] = count();
	@calls["write"] = count();
	@calls["open"] = count();
	@calls["open"] = count();
	@calls["open"] = count();
	printf("before");
	printa(@calls);
	printf("after\n");
	exit(0);
}
