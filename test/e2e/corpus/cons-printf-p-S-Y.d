/* flags: -q */
/* %p prints an address in hex, %S a string with its unprintable characters escaped, %Y a time. */
BEGIN
{
	printf("[%p][%-8p][%16p]\n", 0x1234, (void *)0, (void *)0xffff);
	printf("[%S][%5.2S]\n", "a\tb\\c\001", "xyz");
	printf("%Y\n", (int64_t)0);
	printf("%Y\n", (int64_t)1000000000 * 86400 * 365);
	exit(0);
}
