/* flags: -xerrtags */
BEGIN
{
	printf("%d\n", "s");
}
