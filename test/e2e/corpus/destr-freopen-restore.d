/* flags: -q -w */
/* freopen("") sends output back to dtrace's own, as illumos DTrace documents it: "one" and
   "three" are printed, "two" goes to /dev/null. */
BEGIN
{
	printf("one\n");
	freopen("/dev/%s", "null");
	printf("two\n");
	freopen("");
	printf("three\n");
	exit(0);
}
