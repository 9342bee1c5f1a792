/* flags: -x defaultargs */
#pragma D option quiet

BEGIN
{
	printf("%d [%s]\n", $1, $$2);
	exit(0);
}
