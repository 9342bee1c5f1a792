/* flags: -q */
/* The D library types the addresses inet_ntoa() and inet_ntoa6() take: ipaddr_t, in6_addr_t. */
BEGIN
{
	this->a = (ipaddr_t *)alloca(sizeof (ipaddr_t));
	*this->a = 0x0100007f;
	this->b = (in6_addr_t *)alloca(sizeof (in6_addr_t));
	this->b->in6_u.u6_addr8[15] = 1;
	printf("%s %s %d\n", inet_ntoa(this->a), inet_ntoa6(this->b), sizeof (in6_addr_t));
	exit(0);
}
