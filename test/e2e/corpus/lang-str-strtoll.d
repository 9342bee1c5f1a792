/* flags: -q */
BEGIN
{
	printf("%d\n", strtoll("0x20", 16));
	exit(0);
}
