// The ip provider, and the packet probes the tcp and udp providers build on, from the network
// device tracepoints (attached raw: their argument is the struct sk_buff):
//   send     net:net_dev_start_xmit, as a packet is handed to a device's driver (loopback too);
//            the IP header is at the buffer's network header
//   receive  net:netif_receive_skb, as a device's packet enters the stack; the link header has
//            been pulled, so the IP header is at the buffer's data
// Only IPv4 and IPv6 packets fire (the buffer's protocol). Arguments as DTrace for Linux types
// them, translated by lib/dtrace/ip.d: pktinfo_t, csinfo_t, ipinfo_t, ifinfo_t, ipv4info_t,
// ipv6info_t. An IPv6 packet's transport header is taken to follow its fixed header (extension
// headers are not walked).

import { loadKernelBtf } from '../btf/btf.js';
import type { ArgSource, Guard } from './provider.js';
import { STABLE_PROVIDER_ATTRIBUTES } from './proc.js';
import { RawDerivedProvider, type RawDerivedProbe } from './tracepoint-probe.js';

export type Direction = 'send' | 'receive';

/** The tracepoint a packet probe of each direction is built on. */
export const PACKET_EVENT: Record<Direction, Pick<RawDerivedProbe, 'group' | 'event' | 'params'>> = {
  send: { group: 'net', event: 'net_dev_start_xmit', params: ['const struct sk_buff *', 'const struct net_device *'] },
  receive: { group: 'net', event: 'netif_receive_skb', params: ['struct sk_buff *'] },
};

const offsetOf = (struct: string, member: string): number => loadKernelBtf().memberPath(struct, member).byteOffset;

/** Where a packet probe finds the buffer (raw argument 0), its socket, IP header and device. */
export const packet = {
  skb: (): ArgSource => ({ kind: 'raw', index: 0 }),
  sock: (): ArgSource => ({ kind: 'rawDeref', index: 0, offset: offsetOf('sk_buff', 'sk') }),
  ip: (dir: Direction) => (): ArgSource => dir === 'send'
    ? { kind: 'skbHeader', index: 0, head: offsetOf('sk_buff', 'head'), header: offsetOf('sk_buff', 'network_header') }
    : { kind: 'rawDeref', index: 0, offset: offsetOf('sk_buff', 'data') },
  dev: (dir: Direction) => (): ArgSource => dir === 'send'
    ? { kind: 'raw', index: 1 } : { kind: 'rawDeref', index: 0, offset: offsetOf('sk_buff', 'dev') },
};

/** Only IP packets: the buffer's protocol (big-endian ETH_P_IP 0x0800 or ETH_P_IPV6 0x86dd). */
export function ipPacketGuard(): Guard {
  const deref = offsetOf('sk_buff', 'protocol');
  return { any: [0x0008, 0xdd86].map((value) => ({ offset: 0, deref, size: 2 as const, value, op: 'eq' as const })) };
}

/** The three arguments every packet probe starts with: pktinfo_t, csinfo_t and ipinfo_t. */
export function packetArgs(dir: Direction): RawDerivedProbe['args'] {
  return [
    { type: 'pktinfo_t *', native: 'struct sk_buff *', param: 0, source: packet.skb },
    { type: 'csinfo_t *', native: 'struct sock *', param: 0, source: packet.sock },
    { type: 'ipinfo_t *', native: 'void_ip_t *', param: 0, source: packet.ip(dir) },
  ];
}

function ipProbe(dir: Direction): RawDerivedProbe {
  return {
    name: dir, ...PACKET_EVENT[dir],
    args: [
      ...packetArgs(dir),
      { type: 'ifinfo_t *', native: 'struct net_device *', param: 0, source: packet.dev(dir) },
      { type: 'ipv4info_t *', native: 'struct iphdr *', param: 0, source: () => ({ kind: 'ipOfVersion', ip: 2, version: 4 }) },
      { type: 'ipv6info_t *', native: 'struct ipv6hdr *', param: 0, source: () => ({ kind: 'ipOfVersion', ip: 2, version: 6 }) },
    ],
    guard: () => [ipPacketGuard()],
  };
}

const PROBES: RawDerivedProbe[] = [ipProbe('receive'), ipProbe('send')];

export class IpProvider extends RawDerivedProvider {
  constructor(root?: string) {
    super('ip', STABLE_PROVIDER_ATTRIBUTES, PROBES, root);
  }
}
