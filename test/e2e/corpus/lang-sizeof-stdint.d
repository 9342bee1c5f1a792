/* flags: -q */
BEGIN
{
	printf("%d %d %d %d\n", sizeof (int8_t), sizeof (uint16_t), sizeof (int32_t), sizeof (uint64_t));
	exit(0);
}
