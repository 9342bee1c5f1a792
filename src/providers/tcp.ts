// The tcp provider, as DTrace for Linux gives it, from tracepoints (attached raw):
//   send, receive          the ip provider's packet tracepoints (src/providers/ip.ts), TCP packets
//                          only; a received packet's socket is looked up in the table of sockets
//                          the device follows (device/linux/tcpsocks.ts)
//   connect-request        a SYN without ACK sent
//   accept-refused         a RST answering a SYN sent (RST|ACK with sequence number 0)
//   state-change           sock:inet_sock_set_state of a TCP socket (args[5] the state left)
//   connect-established    the same, SYN_SENT to ESTABLISHED (the SYN-ACK came)
//   accept-established     the same, SYN_RECV to ESTABLISHED (the handshake's ACK came)
//   connect-refused        tcp:tcp_receive_reset of a socket in SYN_SENT
// Arguments: args[0] pktinfo_t, [1] csinfo_t, [2] ipinfo_t, [3] tcpsinfo_t, [4] tcpinfo_t (and
// [5] tcplsinfo_t for state-change); arg6 is the socket's state and arg7 the direction, which
// lib/dtrace/tcp.d's translators read. A probe without a packet has 0 for the packet's arguments.

import { loadKernelBtf } from '../btf/btf.js';
import type { ArgSource, Guard } from './provider.js';
import { STABLE_PROVIDER_ATTRIBUTES } from './proc.js';
import { ipPacketGuard, packet, PACKET_EVENT, type Direction } from './ip.js';
import { RawDerivedProvider, type RawDerivedProbe } from './tracepoint-probe.js';

const IPPROTO_TCP = 6;
const TCP_ESTABLISHED = 1, TCP_SYN_SENT = 2, TCP_SYN_RECV = 3;
const NONE = (): ArgSource => ({ kind: 'none' });
const constant = (value: number) => (): ArgSource => ({ kind: 'constant', value: BigInt(value) });
const stateOffset = (): number => loadKernelBtf().memberPath('sock', '__sk_common.skc_state').byteOffset;

type Arg = RawDerivedProbe['args'][number];

/** args[0..4] and arg6, arg7 of a probe from these sources. */
function tcpArgs(skb: () => ArgSource, sock: () => ArgSource, ip: () => ArgSource, tcp: () => ArgSource,
  state: () => ArgSource, inbound: boolean, previous?: () => ArgSource): Arg[] {
  return [
    { type: 'pktinfo_t *', native: 'struct sk_buff *', param: 0, source: skb },
    { type: 'csinfo_t *', native: 'struct sock *', param: 0, source: sock },
    { type: 'ipinfo_t *', native: '__dtrace_tcp_void_ip_t *', param: 0, source: ip },
    { type: 'tcpsinfo_t *', native: 'struct tcp_sock *', param: 0, source: () => ({ kind: 'argCopy', arg: 1 }) },
    { type: 'tcpinfo_t *', native: 'struct tcphdr *', param: 0, source: tcp },
    previous ? { type: 'tcplsinfo_t *', native: 'int', param: 0, source: previous } : { type: null, param: 0, source: NONE },
    { type: null, param: 0, source: state },
    { type: null, param: 0, source: constant(inbound ? 1 : 0) },
  ];
}

/** A TCP packet probe; `flags` further conditions on the TCP header (its flags, sequence number). */
function packetProbe(name: string, dir: Direction, flags: Guard[] = []): RawDerivedProbe {
  const sock = dir === 'send' ? packet.sock : (): ArgSource => ({ kind: 'tcpSocket', index: 0 });
  const args = tcpArgs(packet.skb, sock, packet.ip(dir), () => ({ kind: 'ipPayload', ip: 2, protocol: IPPROTO_TCP }),
    () => ({ kind: 'argDeref', arg: 1, offset: stateOffset(), size: 1 }), dir === 'receive');
  return { name, ...PACKET_EVENT[dir], args, guard: () => [ipPacketGuard(), { arg: 4, op: 'ne', value: 0 }, ...flags] };
}

const SET_STATE = { group: 'sock', event: 'inet_sock_set_state', params: ['const struct sock *', 'const int', 'const int'] };

/** A probe of a TCP socket's change of state, from `from` to `to` when given. */
function stateProbe(name: string, from?: number, to?: number): RawDerivedProbe {
  const sock = (): ArgSource => ({ kind: 'raw', index: 0 });
  const args = tcpArgs(NONE, sock, NONE, NONE, () => ({ kind: 'raw', index: 2 }), from !== undefined,
    name === 'state-change' ? () => ({ kind: 'raw', index: 1 }) : undefined);
  const when: Guard[] = [];
  if (from !== undefined) when.push({ offset: 8, size: 4, value: from, op: 'eq' });
  if (to !== undefined) when.push({ offset: 16, size: 4, value: to, op: 'eq' });
  return {
    name, ...SET_STATE, args,
    guard: () => [{ offset: 0, deref: loadKernelBtf().memberPath('sock', 'sk_protocol').byteOffset, size: 2, value: IPPROTO_TCP, op: 'eq' }, ...when],
  };
}

function connectRefused(): RawDerivedProbe {
  const sock = (): ArgSource => ({ kind: 'raw', index: 0 });
  const args = tcpArgs(NONE, sock, NONE, NONE, () => ({ kind: 'constant', value: BigInt(TCP_SYN_SENT) }), true);
  return {
    name: 'connect-refused', group: 'tcp', event: 'tcp_receive_reset', params: ['struct sock *'], args,
    guard: () => [{ offset: 0, deref: stateOffset(), size: 1, value: TCP_SYN_SENT, op: 'eq' }],
  };
}

const TH_SYN = 0x02, TH_RST = 0x04, TH_ACK = 0x10, TH_FIN = 0x01;

const PROBES: RawDerivedProbe[] = [
  packetProbe('receive', 'receive'),
  packetProbe('send', 'send'),
  packetProbe('connect-request', 'send', [{ arg: 4, deref: 13, size: 1, mask: TH_SYN | TH_ACK, value: TH_SYN, op: 'eq' }]),
  packetProbe('accept-refused', 'send', [
    { arg: 4, deref: 13, size: 1, mask: TH_FIN | TH_SYN | TH_RST | TH_ACK, value: TH_RST | TH_ACK, op: 'eq' },
    { arg: 4, deref: 4, size: 4, value: 0, op: 'eq' },
  ]),
  stateProbe('state-change'),
  stateProbe('connect-established', TCP_SYN_SENT, TCP_ESTABLISHED),
  stateProbe('accept-established', TCP_SYN_RECV, TCP_ESTABLISHED),
  connectRefused(),
];

export class TcpProvider extends RawDerivedProvider {
  constructor(root?: string) {
    super('tcp', STABLE_PROVIDER_ATTRIBUTES, PROBES, root);
  }
}
