/* flags: -q 6 7 */
BEGIN
{
	printf("%d\n", $1 * $2);
	exit(0);
}
