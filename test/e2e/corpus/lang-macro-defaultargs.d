/* flags: -q -x defaultargs */
BEGIN
{
	printf("%d [%s]\n", $1, $$2);
	exit(0);
}
