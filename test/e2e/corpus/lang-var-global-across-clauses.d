/* flags: -q */
BEGIN
{
	g = 1;
}

BEGIN
{
	g = g + 1;
}

BEGIN
{
	printf("%d\n", g);
	exit(0);
}
