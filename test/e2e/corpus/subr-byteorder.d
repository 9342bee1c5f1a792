/* flags: -q */
BEGIN
{
	printf("[%x] [%x] [%x]\n", htons(0x1234), htonl(0x12345678), htonll(0x0102030405060708));
	printf("[%x] [%x] [%x]\n", ntohs(0x1234), ntohl(0x12345678), ntohll(0x0102030405060708));
	printf("[%d] [%d]\n", getmajor(0x800003), getminor(0x800003));
	exit(0);
}
