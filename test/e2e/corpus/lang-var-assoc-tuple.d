/* flags: -q */
BEGIN
{
	a[1, "x"] = 5;
	a[2, "y"] = 7;
	printf("%d\n", a[1, "x"] + a[2, "y"]);
	exit(0);
}
