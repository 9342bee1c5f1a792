/* flags: -q */
BEGIN
{
	printf("[%8s|%-8s]\n", "ab", "cd");
	exit(0);
}
