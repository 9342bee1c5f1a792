/* flags: -q */
BEGIN
{
	printf("%d %d %d %d %d %d\n", sizeof (char), sizeof (short), sizeof (int), sizeof (long), sizeof (long long), sizeof (void *));
	exit(0);
}
