/* flags: -q */
#pragma ident "a comment for the source"

BEGIN
{
	printf("ok\n");
	exit(0);
}
