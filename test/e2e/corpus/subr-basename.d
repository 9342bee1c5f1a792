/* flags: -q */
BEGIN
{
	printf("[%s] [%s] [%s] [%s] [%s] [%s]\n", basename("/usr/lib/libc.so"), basename("/usr/lib/"), basename("libc"), basename("/"), basename(""), basename("//a//"));
	exit(0);
}
