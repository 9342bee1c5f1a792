/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { printf("%d %d %d %d %d %d\n", ARPHRD_ETHER, ARPHRD_INFINIBAND, PCAP_NULL, PCAP_ETHER, PCAP_WIFI, PCAP_IPOIB); exit(0); }
