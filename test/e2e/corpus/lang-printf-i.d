/* flags: -q */
BEGIN
{
	printf("%i\n", -9);
	exit(0);
}
