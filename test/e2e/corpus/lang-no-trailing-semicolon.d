/* flags: -q */
BEGIN
{
	printf("a\n");
	exit(0)
}
