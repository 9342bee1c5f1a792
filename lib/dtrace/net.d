/*
 * The address types of D's inet_ntoa() and inet_ntoa6(): an IPv4 address, held in network byte
 * order, and the kernel's IPv6 address.
 */

typedef uint32_t ipaddr_t;
typedef struct in6_addr in6_addr_t;

/* The address families inet_ntop() takes, with Linux's numbers (as DTrace for Linux names them). */
inline int AF_INET = 2;
inline int AF_INET6 = 10;

/* A network probe's direction (arg7 of the tcp provider's probes). */
inline int NET_PROBE_OUTBOUND = 0x00;
inline int NET_PROBE_INBOUND = 0x01;
