/* flags: -q */
BEGIN
{
	printf("%s\n", lltostr(-123));
	exit(0);
}
