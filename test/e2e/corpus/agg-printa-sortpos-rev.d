/* flags: -q -x aggsortpos=1 -x aggsortrev */
/* aggsortpos with aggsortrev reverses the whole order, ties included (expected output taken from the reference DTrace for Linux). */
BEGIN
{
	@a["x", 3] = sum(30); @a["y", 1] = sum(10); @a["z", 2] = sum(20); @a["w", 4] = sum(5);
	@b["x", 3] = sum(7); @b["y", 1] = sum(70); @b["v", 9] = sum(1);
	@c["z", 2] = count(); @c["w", 4] = count(); @c["w", 4] = count();
	printa("%s %d %@d %@d %@d\n", @a, @b, @c);
	printa(@a, @b);
	exit(0);
}
