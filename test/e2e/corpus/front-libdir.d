/* flags: -q -L test/e2e/corpus/front-lib */
BEGIN
{
	printf("%d %d\n", answer, xlate <half_t> (answer).h);
	exit(0);
}
