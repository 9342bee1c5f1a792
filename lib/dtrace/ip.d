/*
 * The ip provider's arguments (and the packet and socket types the tcp and udp providers share):
 * pktinfo_t, csinfo_t, ipinfo_t, ifinfo_t, ipv4info_t and ipv6info_t, with the members DTrace for
 * Linux declares. ip:::send fires as a packet leaves for a network device, ip:::receive as a
 * device hands one to the stack (src/providers/ip.ts). Kernel typedefs are not type names in
 * the library, so addresses are declared by their integer types.
 */

inline int IPPROTO_IP = 0;
inline int IPPROTO_ICMP = 1;
inline int IPPROTO_IGMP = 2;
inline int IPPROTO_IPIP = 4;
inline int IPPROTO_TCP = 6;
inline int IPPROTO_EGP = 8;
inline int IPPROTO_PUP = 12;
inline int IPPROTO_UDP = 17;
inline int IPPROTO_IDP = 22;
inline int IPPROTO_TP = 29;
inline int IPPROTO_DCCP = 33;
inline int IPPROTO_IPV6 = 41;
inline int IPPROTO_RSVP = 46;
inline int IPPROTO_GRE = 47;
inline int IPPROTO_ESP = 50;
inline int IPPROTO_AH = 51;
inline int IPPROTO_OSPF = 89;
inline int IPPROTO_MTP = 92;
inline int IPPROTO_BEETPH = 94;
inline int IPPROTO_ENCAP = 98;
inline int IPPROTO_PIM = 103;
inline int IPPROTO_COMP = 108;
inline int IPPROTO_SCTP = 132;
inline int IPPROTO_UDPLITE = 136;
inline int IPPROTO_RAW = 255;
inline int IPPROTO_MAX = 256;
inline int IPPROTO_HOPOPTS = 0;
inline int IPPROTO_ROUTING = 43;
inline int IPPROTO_FRAGMENT = 44;
inline int IPPROTO_ICMPV6 = 58;
inline int IPPROTO_NONE = 59;
inline int IPPROTO_DSTOPTS = 60;
inline int IPPROTO_MH = 135;
inline int TCP_MIN_HEADER_LENGTH = 20;

/* A protocol's name as ipv4info_t and ipv6info_t give it, else its number. */
inline string __dtrace_ip_protostr[int p] =
    p == IPPROTO_TCP ? "TCP" : p == IPPROTO_UDP ? "UDP" : p == IPPROTO_IP ? "IP" :
    p == IPPROTO_ICMP ? "ICMP" : p == IPPROTO_IGMP ? "IGMP" : p == IPPROTO_EGP ? "EGP" :
    p == IPPROTO_IPV6 ? "IPv6" : p == IPPROTO_ROUTING ? "ROUTE" : p == IPPROTO_ESP ? "ESP" :
    p == IPPROTO_AH ? "AH" : p == IPPROTO_ICMPV6 ? "ICMPv6" : p == IPPROTO_OSPF ? "OSPF" :
    p == IPPROTO_SCTP ? "SCTP" : p == IPPROTO_RAW ? "RAW" : lltostr((uint64_t)p);

typedef uint64_t netstackid_t;

typedef struct pktinfo {
	uintptr_t pkt_addr;
} pktinfo_t;

typedef struct csinfo {
	uintptr_t cs_addr;
	uint64_t cs_cid;
} csinfo_t;

typedef struct ipinfo {
	uint8_t ip_ver;
	uint32_t ip_plength;
	string ip_saddr;
	string ip_daddr;
} ipinfo_t;

typedef struct ifinfo {
	string if_name;
	int8_t if_local;
	netstackid_t if_ipstack;
	uintptr_t if_addr;
} ifinfo_t;

typedef struct ipv4info {
	uint8_t ipv4_ver;
	uint8_t ipv4_ihl;
	uint8_t ipv4_tos;
	uint16_t ipv4_length;
	uint16_t ipv4_ident;
	uint8_t ipv4_flags;
	uint16_t ipv4_offset;
	uint8_t ipv4_ttl;
	uint8_t ipv4_protocol;
	string ipv4_protostr;
	uint16_t ipv4_checksum;
	uint32_t ipv4_src;
	uint32_t ipv4_dst;
	string ipv4_saddr;
	string ipv4_daddr;
	struct iphdr *ipv4_hdr;
} ipv4info_t;

typedef struct ipv6info {
	uint8_t ipv6_ver;
	uint8_t ipv6_tclass;
	uint32_t ipv6_flow;
	uint16_t ipv6_plen;
	uint8_t ipv6_nexthdr;
	string ipv6_nextstr;
	uint8_t ipv6_hlim;
	struct in6_addr *ipv6_src;
	struct in6_addr *ipv6_dst;
	string ipv6_saddr;
	string ipv6_daddr;
	struct ipv6hdr *ipv6_hdr;
} ipv6info_t;

/* An IP header of either version: the version is the high nibble of its first byte. */
typedef uintptr_t void_ip_t;

translator pktinfo_t < struct sk_buff *S > {
	pkt_addr = (uintptr_t)S;
};

translator csinfo_t < struct sock *S > {
	cs_addr = (uintptr_t)S;
};

translator ipinfo_t < struct iphdr *I > {
	ip_ver = 4;
	ip_plength = I != NULL ? ntohs(I->tot_len) - ((*(uint8_t *)I & 0xf) << 2) : 0;
	ip_saddr = I != NULL ? inet_ntoa(&I->saddr) : "<unknown>";
	ip_daddr = I != NULL ? inet_ntoa(&I->daddr) : "<unknown>";
};

translator ipinfo_t < struct ipv6hdr *I > {
	ip_ver = 6;
	ip_plength = I != NULL ? ntohs(I->payload_len) : 0;
	ip_saddr = I != NULL ? inet_ntoa6(&I->saddr) : "<unknown>";
	ip_daddr = I != NULL ? inet_ntoa6(&I->daddr) : "<unknown>";
};

translator ipinfo_t < void_ip_t *I > {
	ip_ver = I != NULL ? *(uint8_t *)I >> 4 : 0;
	ip_plength = I == NULL ? 0 :
	    *(uint8_t *)I >> 4 == 4 ?
	    ntohs(((struct iphdr *)I)->tot_len) - ((*(uint8_t *)I & 0xf) << 2) :
	    *(uint8_t *)I >> 4 == 6 ? ntohs(((struct ipv6hdr *)I)->payload_len) : 0;
	ip_saddr = I == NULL ? "<unknown>" :
	    *(uint8_t *)I >> 4 == 4 ? inet_ntoa(&((struct iphdr *)I)->saddr) :
	    *(uint8_t *)I >> 4 == 6 ? inet_ntoa6(&((struct ipv6hdr *)I)->saddr) :
	    "<unknown>";
	ip_daddr = I == NULL ? "<unknown>" :
	    *(uint8_t *)I >> 4 == 4 ? inet_ntoa(&((struct iphdr *)I)->daddr) :
	    *(uint8_t *)I >> 4 == 6 ? inet_ntoa6(&((struct ipv6hdr *)I)->daddr) :
	    "<unknown>";
};

/* A packet a device received is delivered here (if_local is true only without a device). */
translator ifinfo_t < struct net_device *N > {
	if_name = N != NULL ? stringof(N->name) : "<unknown>";
	if_local = N == NULL;
	if_ipstack = N != NULL ? (uint64_t)N->nd_net.net : 0;
	if_addr = (uintptr_t)N;
};

translator ipv4info_t < struct iphdr *I > {
	ipv4_ver = I != NULL ? 4 : 0;
	ipv4_ihl = I != NULL ? (*(uint8_t *)I & 0xf) << 2 : 0;
	ipv4_tos = I != NULL ? I->tos : 0;
	ipv4_length = I != NULL ? ntohs(I->tot_len) : 0;
	ipv4_ident = I != NULL ? ntohs(I->id) : 0;
	ipv4_flags = I != NULL ? ntohs(I->frag_off) >> 12 : 0;
	ipv4_offset = I != NULL ? ntohs(I->frag_off) & 0x0fff : 0;
	ipv4_ttl = I != NULL ? I->ttl : 0;
	ipv4_protocol = I != NULL ? I->protocol : 0;
	ipv4_protostr = I == NULL ? "<null>" : __dtrace_ip_protostr[I->protocol];
	ipv4_checksum = I != NULL ? ntohs(I->check) : 0;
	ipv4_src = I != NULL ? I->saddr : 0;
	ipv4_dst = I != NULL ? I->daddr : 0;
	ipv4_saddr = I != NULL ? inet_ntoa(&I->saddr) : "<null>";
	ipv4_daddr = I != NULL ? inet_ntoa(&I->daddr) : "<null>";
	ipv4_hdr = I;
};

/* The version nibble, traffic class and flow label share the header's first four bytes. */
translator ipv6info_t < struct ipv6hdr *I > {
	ipv6_ver = I != NULL ? *(uint8_t *)I >> 4 : 0;
	ipv6_tclass = I != NULL ? (ntohl(*(uint32_t *)I) & 0x0fffffff) >> 20 : 0;
	ipv6_flow = I != NULL ? ntohl(*(uint32_t *)I) & 0x000fffff : 0;
	ipv6_plen = I != NULL ? ntohs(I->payload_len) : 0;
	ipv6_nexthdr = I != NULL ? I->nexthdr : 0;
	ipv6_nextstr = I == NULL ? "<null>" : __dtrace_ip_protostr[I->nexthdr];
	ipv6_hlim = I != NULL ? I->hop_limit : 0;
	ipv6_src = I != NULL ? &I->saddr : NULL;
	ipv6_dst = I != NULL ? &I->daddr : NULL;
	ipv6_saddr = I != NULL ? inet_ntoa6(&I->saddr) : "<null>";
	ipv6_daddr = I != NULL ? inet_ntoa6(&I->daddr) : "<null>";
	ipv6_hdr = I;
};
