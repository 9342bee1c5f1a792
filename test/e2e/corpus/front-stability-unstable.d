/* flags: -q -v */
/* No provider named: the description is Unstable; a kernel symbol makes the statements Private. */
BEGIN
{
	printf("%d\n", &`vfs_read != 0);
	exit(0);
}
