/* flags: -q */
BEGIN
{
	x = 2;
	a[x * 3] = 11;
	printf("%d\n", a[6]);
	exit(0);
}
