/* flags: -q */
/* %d and %i follow the argument's signedness (as DTrace for Linux prints them; expected output from it), %u %x %X %o are unsigned; each reads the value at its own size. */
BEGIN
{
	printf("char           %d %i %u %x %X %o\n", (char)-3, (char)-3, (char)-3, (char)-3, (char)-3, (char)-3);
	printf("unsigned char  %d %i %u %x %X %o\n", (unsigned char)-3, (unsigned char)-3, (unsigned char)-3, (unsigned char)-3, (unsigned char)-3, (unsigned char)-3);
	printf("short          %d %i %u %x %X %o\n", (short)-3, (short)-3, (short)-3, (short)-3, (short)-3, (short)-3);
	printf("unsigned short %d %i %u %x %X %o\n", (unsigned short)-3, (unsigned short)-3, (unsigned short)-3, (unsigned short)-3, (unsigned short)-3, (unsigned short)-3);
	printf("int            %d %i %u %x %X %o\n", (int)-3, (int)-3, (int)-3, (int)-3, (int)-3, (int)-3);
	printf("unsigned int   %d %i %u %x %X %o\n", (unsigned int)-3, (unsigned int)-3, (unsigned int)-3, (unsigned int)-3, (unsigned int)-3, (unsigned int)-3);
	printf("long           %d %i %u %x %X %o\n", (long)-3, (long)-3, (long)-3, (long)-3, (long)-3, (long)-3);
	printf("unsigned long  %d %i %u %x %X %o\n", (unsigned long)-3, (unsigned long)-3, (unsigned long)-3, (unsigned long)-3, (unsigned long)-3, (unsigned long)-3);
	printf("long long      %d %i\n", (long long)-3, (long long)-3);
	printf("ull            %d %i\n", (unsigned long long)-3, (unsigned long long)-3);
	printf("int8_t  %d uint8_t  %d\n", (int8_t)200, (uint8_t)200);
	printf("int16_t %d uint16_t %d\n", (int16_t)40000, (uint16_t)40000);
	printf("int32_t %d uint32_t %d\n", (int32_t)3000000000, (uint32_t)3000000000);
	printf("int64_t %d uint64_t %d\n", (int64_t)-1, (uint64_t)-1);
	printf("widths |%5d|%-5d|%05d|%+d|% d|%#x|%#o|\n", (unsigned char)250, (short)-2, (unsigned short)7, (char)5, (int)5, (unsigned char)255, (unsigned short)8);
	exit(0);
}
