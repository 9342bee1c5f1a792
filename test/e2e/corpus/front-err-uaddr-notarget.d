/* flags: -xerrtags */
BEGIN
{
	printf("%A\n", arg1);
}
