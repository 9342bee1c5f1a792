/* flags: -q */
BEGIN
{
	printf("%d %d\n", index("banana", "an"), rindex("banana", "an"));
	exit(0);
}
