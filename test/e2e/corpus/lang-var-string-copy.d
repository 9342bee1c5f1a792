/* flags: -q */
BEGIN
{
	a = "x";
	b = a;
	a = "y";
	printf("%s %s\n", a, b);
	exit(0);
}
