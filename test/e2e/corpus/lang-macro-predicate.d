/* flags: -q 3 */
BEGIN
/$1 == 3/
{
	printf("three\n");
}

BEGIN
{
	exit(0);
}
