/* flags: -q */
BEGIN
{
	printf("[%d] [%d] [%d] [%d] [%d] [%d]\n", strtoll("123"), strtoll("  -42abc"), strtoll("0x1f", 16), strtoll("ff", 16), strtoll("777", 8), strtoll("z", 36));
	printf("[%d] [%d] [%d]\n", strtoll(""), strtoll("+7"), strtoll("12", 2));
	exit(0);
}
