/* flags: -q -x aggsortkey -x aggsortkeypos=1 */
/* aggsortkeypos: key order starting from the second key */
BEGIN
{
	@a[3, "c"] = sum(10);
	@a[1, "z"] = sum(30);
	@a[2, "a"] = sum(20);
	@a[4, "b"] = sum(5);
	exit(0);
}
