/* flags: -q */
/*
 * A bare execname key and the same name computed as a string join in printa() by value, though
 * the device lays the first out in 16 bytes and the second in strsize.
 */
BEGIN
{
	@a[execname] = sum(5);
	@b[strjoin(execname, "")] = count();
	@c[execname, 7] = count();
	printa("%s %@d %@d\n", @a, @b);
	printa("%s %d %@d\n", @c);
	exit(0);
}
