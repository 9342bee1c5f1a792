/* flags: -q */
BEGIN
{
	printf("%c\n", 65);
	exit(0);
}
