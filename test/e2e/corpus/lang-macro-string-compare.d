/* flags: -q abc */
BEGIN
{
	printf("%d\n", $$1 == "abc");
	exit(0);
}
