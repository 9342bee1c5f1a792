/* flags: -q */
BEGIN
{
	x = 5;
	printf("%s %s\n", x > 3 ? "big" : "small", x > 9 ? "big" : "small");
	exit(0);
}
