/* flags: -q */
dtrace:::
{
	printf("%s\n", probename);
}

BEGIN
{
	exit(0);
}
