/* flags: -q */
BEGIN
{
	printf("%d %u\n", (long)(int)-1, (unsigned int)-1);
	exit(0);
}
