/* flags: -q */
BEGIN
{
	a["k"] = 5;
	a["k"] = 0;
	printf("%d\n", a["k"]);
	exit(0);
}
