/* flags: -q */
BEGIN
{
	printf("%d %d %d %d %d %d\n", 3 < 5, 5 <= 5, 6 > 7, 7 >= 7, 3 == 3, 3 != 3);
	exit(0);
}
