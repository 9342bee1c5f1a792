/*
 * The tcp provider's arguments: tcpinfo_t (a TCP header), tcpsinfo_t (a connection) and
 * tcplsinfo_t (the state a state-change leaves), with DTrace's members and state numbers (which
 * are Linux's own TCP_* states). Where a probe has no socket (tcp:::receive, before the packet is
 * matched to one) a connection's ports and addresses come from the packet, its direction in
 * arg7; tcps_state is arg6 (src/providers/tcp.ts).
 */

inline int TH_FIN = 0x01;
inline int TH_SYN = 0x02;
inline int TH_RST = 0x04;
inline int TH_PSH = 0x08;
inline int TH_ACK = 0x10;
inline int TH_URG = 0x20;
inline int TH_ECE = 0x40;
inline int TH_CWR = 0x80;

inline int TCP_STATE_IDLE = 0x00;
inline int TCP_STATE_ESTABLISHED = 0x01;
inline int TCP_STATE_SYN_SENT = 0x02;
inline int TCP_STATE_SYN_RECEIVED = 0x03;
inline int TCP_STATE_FIN_WAIT_1 = 0x04;
inline int TCP_STATE_FIN_WAIT_2 = 0x05;
inline int TCP_STATE_TIME_WAIT = 0x06;
inline int TCP_STATE_CLOSED = 0x07;
inline int TCP_STATE_CLOSE_WAIT = 0x08;
inline int TCP_STATE_LAST_ACK = 0x09;
inline int TCP_STATE_LISTEN = 0x0a;
inline int TCP_STATE_CLOSING = 0x0b;

inline string tcp_state_string[int state] =
    state == TCP_STATE_CLOSED ? "state-closed" :
    state == TCP_STATE_IDLE ? "state-idle" :
    state == TCP_STATE_LISTEN ? "state-listen" :
    state == TCP_STATE_SYN_SENT ? "state-syn-sent" :
    state == TCP_STATE_SYN_RECEIVED ? "state-syn-received" :
    state == TCP_STATE_ESTABLISHED ? "state-established" :
    state == TCP_STATE_CLOSE_WAIT ? "state-close-wait" :
    state == TCP_STATE_FIN_WAIT_1 ? "state-fin-wait-1" :
    state == TCP_STATE_CLOSING ? "state-closing" :
    state == TCP_STATE_LAST_ACK ? "state-last-ack" :
    state == TCP_STATE_FIN_WAIT_2 ? "state-fin-wait-2" :
    state == TCP_STATE_TIME_WAIT ? "state-time-wait" :
    "<unknown>";

typedef struct tcpinfo {
	uint16_t tcp_sport;
	uint16_t tcp_dport;
	uint32_t tcp_seq;
	uint32_t tcp_ack;
	uint8_t tcp_offset;
	uint8_t tcp_flags;
	uint16_t tcp_window;
	uint16_t tcp_checksum;
	uint16_t tcp_urgent;
	uintptr_t tcp_hdr;
} tcpinfo_t;

typedef struct tcpsinfo {
	uintptr_t tcps_addr;
	int tcps_local;
	uint16_t tcps_lport;
	uint16_t tcps_rport;
	string tcps_laddr;
	string tcps_raddr;
	int tcps_state;
	uint32_t tcps_iss;
	uint32_t tcps_suna;
	uint32_t tcps_snxt;
	uint32_t tcps_rnxt;
	uint32_t tcps_swnd;
	int32_t tcps_snd_ws;
	uint32_t tcps_rwnd;
	int32_t tcps_rcv_ws;
	uint32_t tcps_cwnd;
	uint32_t tcps_cwnd_ssthresh;
	uint32_t tcps_sack_snxt;
	uint32_t tcps_rto;
	uint32_t tcps_mss;
	int tcps_retransmit;
	uint32_t tcps_rtt;
	uint32_t tcps_rtt_sd;
	uint32_t tcps_irs;
} tcpsinfo_t;

typedef struct tcplsinfo {
	int tcps_state;
} tcplsinfo_t;

/* The IP header of a tcp probe, or NULL: then the addresses are the socket's (arg3). */
typedef void *__dtrace_tcp_void_ip_t;

translator ipinfo_t < __dtrace_tcp_void_ip_t *I > {
	ip_ver = I != NULL ? *(uint8_t *)I >> 4 :
	    arg3 == NULL ? 0 :
	    ((struct sock *)arg3)->__sk_common.skc_family == AF_INET ? 4 :
	    ((struct sock *)arg3)->__sk_common.skc_family == AF_INET6 ? 6 : 0;
	ip_plength = I != NULL && *(uint8_t *)I >> 4 == 4 ?
	    ntohs(((struct iphdr *)I)->tot_len) - ((*(uint8_t *)I & 0xf) << 2) :
	    I != NULL && *(uint8_t *)I >> 4 == 6 ? ntohs(((struct ipv6hdr *)I)->payload_len) :
	    arg0 != NULL ?
	    ((struct tcp_skb_cb *)((struct sk_buff *)arg0)->cb)->end_seq -
	    ((struct tcp_skb_cb *)((struct sk_buff *)arg0)->cb)->seq : 0;
	ip_saddr = I != NULL && *(uint8_t *)I >> 4 == 4 ? inet_ntoa(&((struct iphdr *)I)->saddr) :
	    I != NULL && *(uint8_t *)I >> 4 == 6 ? inet_ntoa6(&((struct ipv6hdr *)I)->saddr) :
	    arg3 == NULL ? "<unknown>" :
	    ((struct sock *)arg3)->__sk_common.skc_family == AF_INET ?
	    inet_ntoa(arg7 == NET_PROBE_INBOUND ? &((struct sock *)arg3)->__sk_common.skc_daddr :
	    &((struct sock *)arg3)->__sk_common.skc_rcv_saddr) :
	    ((struct sock *)arg3)->__sk_common.skc_family == AF_INET6 ?
	    inet_ntoa6(arg7 == NET_PROBE_INBOUND ? &((struct sock *)arg3)->__sk_common.skc_v6_daddr :
	    &((struct sock *)arg3)->__sk_common.skc_v6_rcv_saddr) : "<unknown>";
	ip_daddr = I != NULL && *(uint8_t *)I >> 4 == 4 ? inet_ntoa(&((struct iphdr *)I)->daddr) :
	    I != NULL && *(uint8_t *)I >> 4 == 6 ? inet_ntoa6(&((struct ipv6hdr *)I)->daddr) :
	    arg3 == NULL ? "<unknown>" :
	    ((struct sock *)arg3)->__sk_common.skc_family == AF_INET ?
	    inet_ntoa(arg7 == NET_PROBE_INBOUND ? &((struct sock *)arg3)->__sk_common.skc_rcv_saddr :
	    &((struct sock *)arg3)->__sk_common.skc_daddr) :
	    ((struct sock *)arg3)->__sk_common.skc_family == AF_INET6 ?
	    inet_ntoa6(arg7 == NET_PROBE_INBOUND ? &((struct sock *)arg3)->__sk_common.skc_v6_rcv_saddr :
	    &((struct sock *)arg3)->__sk_common.skc_v6_daddr) : "<unknown>";
};

/* Data offset and flags are the header's bytes 12 and 13. */
translator tcpinfo_t < struct tcphdr *T > {
	tcp_sport = T != NULL ? ntohs(T->source) : 0;
	tcp_dport = T != NULL ? ntohs(T->dest) : 0;
	tcp_seq = T != NULL ? ntohl(T->seq) : 0;
	tcp_ack = T != NULL ? ntohl(T->ack_seq) : 0;
	tcp_offset = T != NULL ? (((uint8_t *)T)[12] & 0xf0) >> 2 : 0;
	tcp_flags = T != NULL ? ((uint8_t *)T)[13] : 0;
	tcp_window = T != NULL ? ntohs(T->window) : 0;
	tcp_checksum = T != NULL ? ntohs(T->check) : 0;
	tcp_urgent = T != NULL ? ntohs(T->urg_ptr) : 0;
	tcp_hdr = (uintptr_t)T;
};

/*
 * A connection from its socket; without one (T NULL), its ports and addresses from the packet's
 * headers (arg4, arg2) as seen from this end, which arg7 says.
 */
translator tcpsinfo_t < struct tcp_sock *T > {
	tcps_addr = (uintptr_t)T;
	tcps_local = T == NULL ? 0 :
	    ((struct sock *)T)->__sk_common.skc_family == AF_INET ?
	    ((struct sock *)T)->__sk_common.skc_rcv_saddr == ((struct sock *)T)->__sk_common.skc_daddr :
	    ((struct sock *)T)->__sk_common.skc_family == AF_INET6 ?
	    ((uint64_t *)&((struct sock *)T)->__sk_common.skc_v6_rcv_saddr)[0] ==
	    ((uint64_t *)&((struct sock *)T)->__sk_common.skc_v6_daddr)[0] &&
	    ((uint64_t *)&((struct sock *)T)->__sk_common.skc_v6_rcv_saddr)[1] ==
	    ((uint64_t *)&((struct sock *)T)->__sk_common.skc_v6_daddr)[1] : 0;
	tcps_lport = T != NULL ?
	    (((struct inet_sock *)T)->inet_sport != 0 ? ntohs(((struct inet_sock *)T)->inet_sport) :
	    ((struct sock *)T)->__sk_common.skc_num) :
	    arg4 != NULL ? ntohs(arg7 == NET_PROBE_INBOUND ? ((struct tcphdr *)arg4)->dest :
	    ((struct tcphdr *)arg4)->source) : 0;
	tcps_rport = T != NULL && ((struct sock *)T)->__sk_common.skc_dport != 0 ?
	    ntohs(((struct sock *)T)->__sk_common.skc_dport) :
	    arg4 != NULL ? ntohs(arg7 == NET_PROBE_INBOUND ? ((struct tcphdr *)arg4)->source :
	    ((struct tcphdr *)arg4)->dest) : 0;
	tcps_laddr = T != NULL && ((struct sock *)T)->__sk_common.skc_family == AF_INET ?
	    inet_ntoa(&((struct sock *)T)->__sk_common.skc_rcv_saddr) :
	    T != NULL && ((struct sock *)T)->__sk_common.skc_family == AF_INET6 ?
	    inet_ntoa6(&((struct sock *)T)->__sk_common.skc_v6_rcv_saddr) :
	    arg2 != NULL && *(uint8_t *)arg2 >> 4 == 4 ?
	    inet_ntoa(arg7 == NET_PROBE_INBOUND ? &((struct iphdr *)arg2)->daddr :
	    &((struct iphdr *)arg2)->saddr) :
	    arg2 != NULL && *(uint8_t *)arg2 >> 4 == 6 ?
	    inet_ntoa6(arg7 == NET_PROBE_INBOUND ? &((struct ipv6hdr *)arg2)->daddr :
	    &((struct ipv6hdr *)arg2)->saddr) : "<unknown>";
	tcps_raddr = T != NULL && ((struct sock *)T)->__sk_common.skc_family == AF_INET ?
	    inet_ntoa(&((struct sock *)T)->__sk_common.skc_daddr) :
	    T != NULL && ((struct sock *)T)->__sk_common.skc_family == AF_INET6 ?
	    inet_ntoa6(&((struct sock *)T)->__sk_common.skc_v6_daddr) :
	    arg2 != NULL && *(uint8_t *)arg2 >> 4 == 4 ?
	    inet_ntoa(arg7 == NET_PROBE_INBOUND ? &((struct iphdr *)arg2)->saddr :
	    &((struct iphdr *)arg2)->daddr) :
	    arg2 != NULL && *(uint8_t *)arg2 >> 4 == 6 ?
	    inet_ntoa6(arg7 == NET_PROBE_INBOUND ? &((struct ipv6hdr *)arg2)->saddr :
	    &((struct ipv6hdr *)arg2)->daddr) : "<unknown>";
	tcps_state = arg6 == 12 ? TCP_STATE_SYN_RECEIVED : arg6;	/* a request socket (NEW_SYN_RECV) */
	tcps_iss = T != NULL ? T->snd_una - (uint32_t)T->bytes_acked : 0;
	tcps_suna = T != NULL ? T->snd_una : 0;
	tcps_snxt = T != NULL ? T->snd_nxt : 0;
	tcps_rnxt = T != NULL ? T->rcv_nxt : 0;
	tcps_swnd = T != NULL ? T->snd_wnd : 0;
	tcps_snd_ws = T != NULL ? T->rx_opt.snd_wscale : 0;
	tcps_rwnd = T != NULL ? T->rcv_wnd : 0;
	tcps_rcv_ws = T != NULL ? T->rx_opt.rcv_wscale : 0;
	tcps_cwnd = T != NULL ? T->snd_cwnd : 0;
	tcps_cwnd_ssthresh = T != NULL ? T->snd_ssthresh : 0;
	tcps_sack_snxt = T == NULL ? 0 : T->sacked_out == 0 ? T->snd_una :
	    T->highest_sack == NULL ? T->snd_nxt :
	    ((struct tcp_skb_cb *)T->highest_sack->cb)->seq;
	tcps_rto = T != NULL ? T->inet_conn.icsk_rto : 0;
	tcps_mss = T != NULL ? T->mss_cache : 0;
	tcps_retransmit = T != NULL && arg0 != NULL ?
	    ((struct tcp_skb_cb *)((struct sk_buff *)arg0)->cb)->end_seq < T->snd_nxt - 1 : 0;
	tcps_rtt = T != NULL ? (T->srtt_us >> 3) / 1000 : 0;
	tcps_rtt_sd = T != NULL ? (T->mdev_us >> 2) / 1000 : 0;
	tcps_irs = T != NULL && T->bytes_received > 0 ? T->rcv_nxt - (uint32_t)T->bytes_received : 0;
};

translator tcplsinfo_t < int I > {
	tcps_state = I;
};
