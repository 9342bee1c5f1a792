/* flags: -q -x aggsortkey -x aggsortrev */
/* aggsortkey with aggsortrev: key order, reversed */
BEGIN
{
	@a["apple"] = count();
	@a["cherry"] = count();
	@a["banana"] = count();
	@a["banana"] = count();
	exit(0);
}
