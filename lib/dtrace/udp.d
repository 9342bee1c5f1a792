/*
 * The udp provider's arguments: udpinfo_t (a UDP header) and udpsinfo_t (the socket, its ports
 * and addresses read from the packet's headers, arg4 and arg2, as seen from this end: a send's
 * source is the local end, a receive's destination). See src/providers/udp.ts.
 */

typedef struct udpinfo {
	uint16_t udp_sport;
	uint16_t udp_dport;
	uint16_t udp_length;
	uint16_t udp_checksum;
	struct udphdr *udp_hdr;
} udpinfo_t;

typedef struct udpsinfo {
	uintptr_t udps_addr;
	uint16_t udps_lport;
	uint16_t udps_rport;
	string udps_laddr;
	string udps_raddr;
} udpsinfo_t;

translator udpinfo_t < struct udphdr *U > {
	udp_sport = ntohs(U->source);
	udp_dport = ntohs(U->dest);
	udp_length = ntohs(U->len);
	udp_checksum = ntohs(U->check);
	udp_hdr = U;
};

translator udpsinfo_t < struct udp_sock *S > {
	udps_addr = (uintptr_t)S;
	udps_lport = arg4 == NULL ? 0 : ntohs(probename == "send" ?
	    ((struct udphdr *)arg4)->source : ((struct udphdr *)arg4)->dest);
	udps_rport = arg4 == NULL ? 0 : ntohs(probename == "send" ?
	    ((struct udphdr *)arg4)->dest : ((struct udphdr *)arg4)->source);
	udps_laddr = arg2 != NULL && *(uint8_t *)arg2 >> 4 == 4 ?
	    inet_ntoa(probename == "send" ? &((struct iphdr *)arg2)->saddr :
	    &((struct iphdr *)arg2)->daddr) :
	    arg2 != NULL && *(uint8_t *)arg2 >> 4 == 6 ?
	    inet_ntoa6(probename == "send" ? &((struct ipv6hdr *)arg2)->saddr :
	    &((struct ipv6hdr *)arg2)->daddr) : "<unknown>";
	udps_raddr = arg2 != NULL && *(uint8_t *)arg2 >> 4 == 4 ?
	    inet_ntoa(probename == "send" ? &((struct iphdr *)arg2)->daddr :
	    &((struct iphdr *)arg2)->saddr) :
	    arg2 != NULL && *(uint8_t *)arg2 >> 4 == 6 ?
	    inet_ntoa6(probename == "send" ? &((struct ipv6hdr *)arg2)->daddr :
	    &((struct ipv6hdr *)arg2)->saddr) : "<unknown>";
};
