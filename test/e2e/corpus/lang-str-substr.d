/* flags: -q */
BEGIN
{
	printf("%s|%s\n", substr("hello", 1, 3), substr("hello", -2));
	exit(0);
}
