/* flags: -q */
BEGIN
{
	printf("%d\n", -16 >> 2);
	exit(0);
}
