/* flags: -q */
/* printa() right after trunc(@, 5) prints five rows; trunc(@, -2) keeps the two lowest (expected output taken from the reference DTrace for Linux). */
BEGIN
{
	@a[1] = sum(1); @a[2] = sum(2); @a[3] = sum(3); @a[4] = sum(4);
	@a[5] = sum(5); @a[6] = sum(6); @a[7] = sum(7); @a[8] = sum(8);
	trunc(@a, 5);
	printa(@a);
	trunc(@a, -2);
	printa("%d %@d\n", @a);
	exit(0);
}
