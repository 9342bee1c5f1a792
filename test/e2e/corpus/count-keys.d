/* flags: -q */
BEGIN
{
	@a["x"] = count();
	@a["x"] = count();
	@a["y"] = count();
	@b = count();
	@s = sum(40);
	@s = sum(2);
	exit(0);
}
