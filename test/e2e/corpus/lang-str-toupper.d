/* flags: -q */
BEGIN
{
	printf("%s\n", toupper("mixed Case"));
	exit(0);
}
