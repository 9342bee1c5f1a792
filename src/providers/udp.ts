// The udp provider, as DTrace for Linux gives it: send and receive are the ip provider's packet
// tracepoints (src/providers/ip.ts) for UDP packets only. Arguments: args[0] pktinfo_t, [1]
// csinfo_t, [2] ipinfo_t, [3] udpsinfo_t, [4] udpinfo_t (lib/dtrace/udp.d); a received packet
// has no socket yet, and udpsinfo_t's ports and addresses come from its headers either way.

import { STABLE_PROVIDER_ATTRIBUTES } from './proc.js';
import { ipPacketGuard, packet, packetArgs, PACKET_EVENT, type Direction } from './ip.js';
import { RawDerivedProvider, type RawDerivedProbe } from './tracepoint-probe.js';

const IPPROTO_UDP = 17;

function udpProbe(dir: Direction): RawDerivedProbe {
  return {
    name: dir, ...PACKET_EVENT[dir],
    args: [
      ...packetArgs(dir),
      { type: 'udpsinfo_t *', native: 'struct udp_sock *', param: 0, source: packet.sock },
      { type: 'udpinfo_t *', native: 'struct udphdr *', param: 0, source: () => ({ kind: 'ipPayload', ip: 2, protocol: IPPROTO_UDP }) },
    ],
    guard: () => [ipPacketGuard(), { arg: 4, op: 'ne', value: 0 }],
  };
}

const PROBES: RawDerivedProbe[] = [udpProbe('receive'), udpProbe('send')];

export class UdpProvider extends RawDerivedProvider {
  constructor(root?: string) {
    super('udp', STABLE_PROVIDER_ATTRIBUTES, PROBES, root);
  }
}
