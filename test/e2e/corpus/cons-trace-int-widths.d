/* flags: -q */
/* trace() of every integer width prints it signed or unsigned as its type is (expected output taken from the reference DTrace for Linux). */
BEGIN
{
	trace((char)-3); trace(" ");
	trace((unsigned char)-3); trace(" ");
	trace((short)-3); trace(" ");
	trace((unsigned short)-3); trace(" ");
	trace((int)-3); trace(" ");
	trace((unsigned int)-3); trace(" ");
	trace((long)-3); trace(" ");
	trace((unsigned long)-3); trace(" ");
	trace((int8_t)-128); trace(" ");
	trace((uint16_t)65535); trace(" ");
	trace((uint32_t)4294967295); trace(" ");
	trace((int64_t)-9223372036854775807 - 1);
	printf("\n");
	exit(0);
}
