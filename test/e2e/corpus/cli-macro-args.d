/* flags: -q hello 0x10 */
BEGIN
{
	printf("%s %s %d %s\n", $$0, $$1, $2, $$2);
	exit(0);
}
