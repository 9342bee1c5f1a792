/*
 * The address types of D's inet_ntoa() and inet_ntoa6(): an IPv4 address, held in network byte
 * order, and the kernel's IPv6 address.
 */

typedef uint32_t ipaddr_t;
typedef struct in6_addr in6_addr_t;

/* The address families inet_ntop() takes, with Linux's numbers (as DTrace for Linux names them). */
inline int AF_INET = 2;
inline int AF_INET6 = 10;

/* Link and capture numbers and probe directions DTrace for Linux's net.d and pcap.d name (values as
 * the reference prints them); the IPPROTO_ numbers are in ip.d. */
inline int ARPHRD_ETHER = 1;
inline int ARPHRD_INFINIBAND = 32;
inline int NET_PROBE_INBOUND = 1;
inline int NET_PROBE_OUTBOUND = 0;
inline int PCAP_ETHER = 1;
inline int PCAP_IP = 12;
inline int PCAP_IPOIB = 242;
inline int PCAP_NULL = 0;
inline int PCAP_PPP = 9;
inline int PCAP_WIFI = 105;
