/* flags: -q */
/* The size prefixes h, l and ll, and %c: each conversion takes only the argument types DTrace's table gives it. */
BEGIN
{
	printf("h  %hd %hi %hu %hx %hX %ho\n", (short)-3, (short)-3, (unsigned short)-3, (short)-3, (unsigned short)-3, (unsigned short)-3);
	printf("l  %ld %li %lu %lx %lX %lo\n", (long)-3, (long)-3, (unsigned long)-3, (long)-3, (unsigned long)-3, (unsigned long)-3);
	printf("ll %lld %lli %llu %llx %llX %llo\n", (long long)-3, (long long)-3, (unsigned long long)-3, (long long)-3, (unsigned long long)-3, (unsigned long long)-3);
	printf("c  %c%c%c|%3c|%-3c|\n", (char)68, (short)84, (int)114, (char)97, (unsigned char)98);
	exit(0);
}
