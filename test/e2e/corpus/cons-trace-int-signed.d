/* flags: -x cpu=0 */
/* trace() of every integer width and signedness, not quiet: each in its field by record size,
   signed or unsigned as its type is (values as the reference DTrace for Linux prints them; its
   fields for 4- and 8-byte values are wider than illumos's " %8d" and " %16lld", kept here). */
BEGIN
{
	trace((int8_t)-1); trace((uint8_t)-1); trace((int16_t)-1); trace((uint16_t)-1);
	trace((int32_t)-1); trace((uint32_t)-1); trace((int64_t)-1); trace((uint64_t)-1);
	trace((char)-1); trace((short)-1); trace((unsigned short)200); trace((int8_t)127); trace((int8_t)-128);
	trace((void *)-1);
	exit(0);
}
