/* flags: -q */
BEGIN
{
	printf("%d\n", $target);
	exit(0);
}
