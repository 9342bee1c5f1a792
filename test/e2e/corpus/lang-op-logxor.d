/* flags: -q */
BEGIN
{
	printf("%d %d %d %d\n", 1 ^^ 1, 1 ^^ 0, 0 ^^ 0, 0 ^^ 3);
	exit(0);
}
