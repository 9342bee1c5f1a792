/* Associative arrays: tuple keys of integers and strings, string values, missing elements read as 0. */
#pragma D option quiet

BEGIN
{
	a[1, "one"] = 100;
	a[2, "two"] = 200;
	a[1, "two"] = 12;
	a[1, "one"] += 1;
	a[2, "two"]++;
	names[execname, 1] = "first";
	names[execname, 2] = "second";
	self->t["x", 3] = 33;
	k = "two";
}

BEGIN
{
	printf("%d %d %d %d\n", a[1, "one"], a[2, k], a[1, "two"], a[2, "one"]);
	printf("%s %s %d\n", names["dtrace", 1], names["dtrace", 2], names["dtrace", 3] == "");
	printf("%d %d\n", self->t["x", 3], self->t["x", 4]);
	exit(0);
}
