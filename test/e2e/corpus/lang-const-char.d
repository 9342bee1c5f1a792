/* flags: -q */
BEGIN
{
	printf("%d %d %d\n", 'A', 'a' + 1, '\n');
	exit(0);
}
