/*
 * The address types of D's inet_ntoa() and inet_ntoa6(): an IPv4 address, held in network byte
 * order, and the kernel's IPv6 address.
 */

typedef uint32_t ipaddr_t;
typedef struct in6_addr in6_addr_t;

/* The address families inet_ntop() takes, with Linux's numbers (as DTrace for Linux names them). */
inline int AF_INET = 2;
inline int AF_INET6 = 10;

/* Protocol, link and capture numbers and probe directions DTrace for Linux's ip.d, net.d and pcap.d
 * name (values as the reference prints them). */
inline int ARPHRD_ETHER = 1;
inline int ARPHRD_INFINIBAND = 32;
inline int IPPROTO_AH = 51;
inline int IPPROTO_BEETPH = 94;
inline int IPPROTO_COMP = 108;
inline int IPPROTO_DCCP = 33;
inline int IPPROTO_DSTOPTS = 60;
inline int IPPROTO_EGP = 8;
inline int IPPROTO_ENCAP = 98;
inline int IPPROTO_ESP = 50;
inline int IPPROTO_FRAGMENT = 44;
inline int IPPROTO_GRE = 47;
inline int IPPROTO_HOPOPTS = 0;
inline int IPPROTO_ICMP = 1;
inline int IPPROTO_ICMPV6 = 58;
inline int IPPROTO_IDP = 22;
inline int IPPROTO_IGMP = 2;
inline int IPPROTO_IP = 0;
inline int IPPROTO_IPIP = 4;
inline int IPPROTO_IPV6 = 41;
inline int IPPROTO_MAX = 256;
inline int IPPROTO_MH = 135;
inline int IPPROTO_MTP = 92;
inline int IPPROTO_NONE = 59;
inline int IPPROTO_OSPF = 89;
inline int IPPROTO_PIM = 103;
inline int IPPROTO_PUP = 12;
inline int IPPROTO_RAW = 255;
inline int IPPROTO_ROUTING = 43;
inline int IPPROTO_RSVP = 46;
inline int IPPROTO_SCTP = 132;
inline int IPPROTO_TCP = 6;
inline int IPPROTO_TP = 29;
inline int IPPROTO_UDP = 17;
inline int IPPROTO_UDPLITE = 136;
inline int NET_PROBE_INBOUND = 1;
inline int NET_PROBE_OUTBOUND = 0;
inline int PCAP_ETHER = 1;
inline int PCAP_IP = 12;
inline int PCAP_IPOIB = 242;
inline int PCAP_NULL = 0;
inline int PCAP_PPP = 9;
inline int PCAP_WIFI = 105;
inline int TCP_MIN_HEADER_LENGTH = 20;
