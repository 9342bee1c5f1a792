/* flags: -q */
BEGIN
{
	printf("%d %d\n", strlen("hello"), strlen(""));
	exit(0);
}
