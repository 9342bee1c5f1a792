/* flags: -q -x nspec=8 */
/* An id beyond nspec is an illegal operation; 0 is quietly ignored. */
BEGIN
{
	commit(0);
	discard(0);
}

BEGIN
{
	commit(1024);
}

BEGIN
{
	printf("done\n");
	exit(0);
}
