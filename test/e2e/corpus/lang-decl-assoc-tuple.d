/* flags: -q */
int a[int, string];

BEGIN
{
	a[1, "x"] = 5;
	printf("%d %d\n", a[1, "x"], a[2, "x"]);
	exit(0);
}
