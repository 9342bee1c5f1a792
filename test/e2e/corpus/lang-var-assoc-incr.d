/* flags: -q */
BEGIN
{
	a["x"]++;
	a["x"]++;
	a["y"] += 5;
	printf("%d %d\n", a["x"], a["y"]);
	exit(0);
}
