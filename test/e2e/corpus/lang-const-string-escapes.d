/* flags: -q */
BEGIN
{
	printf("a\tb\\c\"d\"\n");
	exit(0);
}
