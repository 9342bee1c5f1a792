/* flags: -xerrtags */
BEGIN
{
	printf("abc);
}
