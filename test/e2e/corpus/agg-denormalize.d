/* flags: -q */
/* denormalize(): back to the raw values after normalize() */
BEGIN
{
	@s["x"] = sum(700);
	@s["y"] = sum(350);
	normalize(@s, 7);
	printa("%s %@d\n", @s);
	denormalize(@s);
	printa("%s %@d\n", @s);
	exit(0);
}
