/* flags: -q */
BEGIN
{
	printf("%d %d\n", (int *)4 < (int *)8, (int *)8 == (int *)8);
	exit(0);
}
