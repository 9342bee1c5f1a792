/* flags: -q */
/* AF_INET and AF_INET6 come from the D library's net.d with Linux's numbers, for inet_ntop(). */
BEGIN
{
	this->a = (ipaddr_t *)alloca(sizeof (ipaddr_t));
	*this->a = htonl(0x7f000001);
	printf("%d %d %s\n", AF_INET, AF_INET6, inet_ntop(AF_INET, this->a));
	exit(0);
}
