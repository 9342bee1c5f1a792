/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { printf("%d %d %d\n", NET_PROBE_INBOUND, NET_PROBE_OUTBOUND, TCP_MIN_HEADER_LENGTH); exit(0); }
