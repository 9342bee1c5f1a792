/* flags: -q */
int a[string];

BEGIN
{
	a["x"] = 1;
	a["y"] = 2;
	printf("%d\n", a["x"] + a["y"]);
	exit(0);
}
