/* flags: -q */
BEGIN
{
	printf("%llx\n", 0xdeadbeefcafeULL);
	exit(0);
}
