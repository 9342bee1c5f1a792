/* flags: -q */
/* trace() reads 1- and 2-byte records unsigned and 4- and 8-byte records signed, whatever the type's sign. */
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
