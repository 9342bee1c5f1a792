/* flags: -q */
BEGIN
{
	printf("%s\n", 2 > 3 ? "yes" : "no");
	exit(0);
}
