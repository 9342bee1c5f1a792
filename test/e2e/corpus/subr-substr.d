/* flags: -q */
BEGIN
{
	printf("[%s] [%s] [%s] [%s]\n", substr("hello", 1), substr("hello", -2), substr("hello", 0, 2), substr("hello", 10));
}

BEGIN
{
	printf("[%s] [%s] [%s] [%s]\n", substr("hello", -10, 7), substr("hello", 1, -1), substr("hello", -3, 2), substr("hello", 2, 0));
	exit(0);
}
