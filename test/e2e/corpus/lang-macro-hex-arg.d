/* flags: -q 0xff */
BEGIN
{
	printf("%d\n", $1);
	exit(0);
}
