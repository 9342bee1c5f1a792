/* flags: -q */
BEGIN
{
	printf("%d\n", (int *)16 - (int *)4);
	exit(0);
}
