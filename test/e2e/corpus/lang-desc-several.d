/* flags: -q */
BEGIN, END
{
	printf("%s\n", probename);
}

BEGIN
{
	exit(0);
}
