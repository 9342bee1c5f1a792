/* flags: -q */
BEGIN
{
	printf("1");
}

BEGIN
{
	printf("2");
}

BEGIN
{
	printf("3\n");
	exit(0);
}
