/* flags: -q */
BEGIN
{
	t["a", 1, "b"] = 9;
	printf("%d %d\n", t["a", 1, "b"], t["a", 2, "b"]);
	exit(0);
}
