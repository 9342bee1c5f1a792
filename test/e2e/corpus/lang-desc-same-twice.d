/* flags: -q */
BEGIN, BEGIN
{
	n++;
}

BEGIN
{
	printf("%d\n", n);
	exit(0);
}
