/* flags: -q */
BEGIN
{
	printf("[%s] [%s] [%s] [%s] [%s] [%s]\n", dirname("/usr/lib/libc.so"), dirname("/usr/lib/"), dirname("libc"), dirname("/"), dirname(""), dirname("/a"));
	exit(0);
}
