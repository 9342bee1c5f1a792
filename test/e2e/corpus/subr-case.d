/* flags: -q */
BEGIN
{
	printf("[%s] [%s] [%s]\n", toupper("Hello, World 123"), tolower("Hello, World 123"), toupper(""));
	exit(0);
}
