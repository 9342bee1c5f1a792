/* flags: -q */
BEGIN
{
	a["k"] = 5;
	printf("%d\n", a["nope"]);
	exit(0);
}
