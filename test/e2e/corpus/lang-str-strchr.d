/* flags: -q */
BEGIN
{
	printf("%s\n", strchr("key=value", '='));
	exit(0);
}
