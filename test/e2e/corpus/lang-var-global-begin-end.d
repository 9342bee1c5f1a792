/* flags: -q */
BEGIN
{
	g = 7;
	exit(0);
}

END
{
	printf("%d\n", g);
}
