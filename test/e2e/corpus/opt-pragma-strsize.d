/* flags: -q */
/* A pragma's strsize sizes D's string type for what follows it, and the device takes it from the
 * DOF's options: the value is cut at 8 characters (and a NUL, as DTrace for Linux keeps strsize
 * characters), and sizeof(s) is 8 (was 256). */
#pragma D option strsize=8

BEGIN
{
	s = "abcdefghijklmnop";
	printf("%s|%d\n", s, sizeof(s));
	exit(0);
}
