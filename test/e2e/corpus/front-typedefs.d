/* flags: -q */
BEGIN
{
	printf("%d %d %d %d\n", sizeof(uint8_t), sizeof(uint16_t), sizeof(uint32_t), sizeof(uint64_t));
	printf("%d %d %d %d\n", sizeof(int8_t), sizeof(size_t), sizeof(pid_t), sizeof(uintptr_t));
	printf("%d %d %d\n", sizeof(uchar_t), sizeof(ushort_t), sizeof(ulong_t));
	exit(0);
}
