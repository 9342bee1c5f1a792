// The socket of a TCP packet as it is received (tcp:::receive's csinfo_t and tcpsinfo_t). The
// device tracepoint a packet enters by (net:netif_receive_skb) comes before the kernel looks its
// socket up, and tracing programs cannot call the kernel's lookup. So the device keeps its own
// table, keyed by each socket's addresses and ports as the socket sees them (local, remote):
// - a program on sock:inet_sock_set_state adds a TCP socket at each change of state (a listener
//   when it starts to listen) and removes it when it closes;
// - a program on net:net_dev_start_xmit adds the socket of each TCP packet sent, which finds the
//   ones that were open before tracing began, and a connecting socket once its port is chosen
//   (its SYN_SENT change of state comes before that).
// A received packet's socket is the entry for (its destination, its source), else a listener's
// on its destination address and port, else a listener's on any address (IPv4 packets also
// match an IPv6 listener on any address). A socket that has sent nothing and changed no state
// since tracing began (a listener opened before) is not found: the arguments then describe none.

import { loadKernelBtf } from '../../btf/btf.js';
import { ALU, BpfAsm, FP, HELPER, JMP, type Label, R0, R1, R2, R3, R4, R6, R7, R8, R9 } from './bpf-asm.js';

/** The key: family u16, local port u16 (host order), remote port u16 (network order), 2 bytes of
 *  padding, local address [16], remote address [16] (IPv4 addresses in the first 4 bytes). */
export const TCPSOCK_KEY_SIZE = 40;
/** Sockets followed at once (an LRU table: the least recently used goes first). */
export const TCPSOCK_ENTRIES = 16384;

const AF_INET = 2, AF_INET6 = 10, IPPROTO_TCP = 6;
const TCP_TIME_WAIT = 6, TCP_CLOSE = 7, TCP_LISTEN = 10, TCP_NEW_SYN_RECV = 12;
const K_FAMILY = 0, K_LPORT = 2, K_RPORT = 4, K_LADDR = 8, K_RADDR = 24;

/** Where a socket's fields are (struct sock, from the kernel's BTF) and the buffer's socket. */
export interface SockOffsets {
  family: number; state: number; num: number; dport: number; protocol: number;
  rcvSaddr: number; daddr: number; v6RcvSaddr: number; v6Daddr: number;
  /** struct sk_buff's sk and data */
  skbSk: number; skbData: number;
}

/** The offsets, from the kernel's BTF. */
export function sockOffsets(): SockOffsets {
  const btf = loadKernelBtf();
  const at = (struct: string, member: string) => btf.memberPath(struct, member).byteOffset;
  const common = (m: string) => at('sock', `__sk_common.${m}`);
  return {
    family: common('skc_family'), state: common('skc_state'), num: common('skc_num'), dport: common('skc_dport'),
    protocol: at('sock', 'sk_protocol'), rcvSaddr: common('skc_rcv_saddr'), daddr: common('skc_daddr'),
    v6RcvSaddr: common('skc_v6_rcv_saddr'), v6Daddr: common('skc_v6_daddr'),
    skbSk: at('sk_buff', 'sk'), skbData: at('sk_buff', 'data'),
  };
}

/** probe_read_kernel(base + dst, size, r3): into the stack (base FP) or mem (base R8). */
function readInto(a: BpfAsm, base: number, dst: number, size: number): void {
  a.mov(R1, base), a.aluImm(ALU.ADD, R1, dst), a.movImm(R2, size);
  a.call(HELPER.probe_read_kernel);
}

/** r3 = r7 (the socket) + offset */
const field = (a: BpfAsm, offset: number) => { a.mov(R3, R7), a.aluImm(ALU.ADD, R3, offset); };

/**
 * The program that follows sockets: on inet_sock_set_state (`source` 'state': raw arguments sk,
 * oldstate, newstate) or net_dev_start_xmit ('xmit': skb, dev).
 */
export function tcpSockProgram(mapFd: number, source: 'state' | 'xmit', o: SockOffsets): Buffer {
  const a = new BpfAsm();
  const out = a.label('tcpsock.out');
  const key = -48, value = -56, tmp = -64;
  a.mov(R6, R1);
  a.st(8, FP, tmp, 0);
  if (source === 'state') {
    a.ldx(8, R7, R6, 0);
  } else {
    a.ldx(8, R3, R6, 0), a.aluImm(ALU.ADD, R3, o.skbSk);
    a.st(8, FP, value, 0);
    readInto(a, FP, value, 8);
    a.ldx(8, R7, FP, value);
    a.jmpImm(JMP.JEQ, R7, 0, out);
    // Request and time-wait sockets are not full sockets (no sk_protocol); listeners are added
    // when they start to listen.
    field(a, o.state), readInto(a, FP, tmp, 1);
    a.ldx(1, R0, FP, tmp);
    for (const s of [TCP_TIME_WAIT, TCP_LISTEN, TCP_NEW_SYN_RECV]) a.jmpImm(JMP.JEQ, R0, s, out);
  }
  a.stx(8, FP, value, R7);
  a.st(8, FP, tmp, 0);
  field(a, o.protocol), readInto(a, FP, tmp, 2);
  a.ldx(2, R0, FP, tmp);
  a.jmpImm(JMP.JNE, R0, IPPROTO_TCP, out);
  for (let i = 0; i < TCPSOCK_KEY_SIZE; i += 8) a.st(8, FP, key + i, 0);
  field(a, o.family), readInto(a, FP, key + K_FAMILY, 2);
  field(a, o.num), readInto(a, FP, key + K_LPORT, 2);
  field(a, o.dport), readInto(a, FP, key + K_RPORT, 2);
  a.ldx(2, R0, FP, key + K_FAMILY);
  const v6 = a.label('tcpsock.v6'), keyed = a.label('tcpsock.keyed');
  a.jmpImm(JMP.JEQ, R0, AF_INET6, v6);
  a.jmpImm(JMP.JNE, R0, AF_INET, out);
  field(a, o.rcvSaddr), readInto(a, FP, key + K_LADDR, 4);
  field(a, o.daddr), readInto(a, FP, key + K_RADDR, 4);
  a.ja(keyed);
  a.place(v6);
  field(a, o.v6RcvSaddr), readInto(a, FP, key + K_LADDR, 16);
  field(a, o.v6Daddr), readInto(a, FP, key + K_RADDR, 16);
  // An IPv6 socket of an IPv4 peer (::ffff:a.b.c.d) receives IPv4 packets: key it as IPv4.
  a.ldx(8, R0, FP, key + K_RADDR), a.jmpImm(JMP.JNE, R0, 0, keyed);
  a.ldx(2, R0, FP, key + K_RADDR + 8), a.jmpImm(JMP.JNE, R0, 0, keyed);
  a.ldx(2, R0, FP, key + K_RADDR + 10), a.jmpImm(JMP.JNE, R0, 0xffff, keyed);
  a.st(2, FP, key + K_FAMILY, AF_INET);
  a.ldx(4, R0, FP, key + K_LADDR + 12), a.stx(4, FP, key + K_LADDR, R0);
  a.st(4, FP, key + K_LADDR + 4, 0), a.st(8, FP, key + K_LADDR + 8, 0);
  a.ldx(4, R0, FP, key + K_RADDR + 12), a.stx(4, FP, key + K_RADDR, R0);
  a.st(4, FP, key + K_RADDR + 4, 0), a.st(8, FP, key + K_RADDR + 8, 0);
  a.place(keyed);
  a.ldMap(R1, mapFd), a.mov(R2, FP), a.aluImm(ALU.ADD, R2, key);
  if (source === 'state') {
    const keep = a.label('tcpsock.keep');
    a.ldx(4, R0, R6, 16);
    a.jmpImm(JMP.JNE, R0, TCP_CLOSE, keep);
    a.call(HELPER.map_delete_elem);
    a.ja(out);
    a.place(keep);
  }
  a.mov(R3, FP), a.aluImm(ALU.ADD, R3, value), a.movImm(R4, 0);
  a.call(HELPER.map_update_elem);
  a.place(out);
  a.movImm(R0, 0);
  a.exit();
  return a.finish();
}

/**
 * Store at mem offset `slot` (R8) the socket of the TCP packet received that raw argument
 * `index` (a struct sk_buff *, its IP header at its data) holds, or 0. The key is built in mem at
 * `keyAt` (TCPSOCK_KEY_SIZE + 8 bytes); uses the stack slot at fp-8, which the prologue zeroes
 * again after the arguments are loaded.
 */
export function emitTcpSocket(a: BpfAsm, mapFd: number, index: number, o: SockOffsets, slot: number, keyAt: number): void {
  const done = a.label('tcpsock.done'), none = a.label('tcpsock.none'), found = a.label('tcpsock.found');
  const tcpAt = keyAt + TCPSOCK_KEY_SIZE;
  const readByte = (offset: number, to: Label) => {
    a.ldx(8, R3, R8, slot), a.aluImm(ALU.ADD, R3, offset);
    a.st(8, FP, -8, 0);
    readInto(a, FP, -8, 1);
    a.jmpImm(JMP.JNE, R0, 0, to);
    a.ldx(1, R0, FP, -8);
  };
  for (let i = 0; i < TCPSOCK_KEY_SIZE; i += 8) a.st(8, R8, keyAt + i, 0);
  // slot = the IP header, for now
  a.ldx(8, R3, R9, 8 * index), a.aluImm(ALU.ADD, R3, o.skbData);
  a.st(8, FP, -8, 0);
  readInto(a, FP, -8, 8);
  a.ldx(8, R0, FP, -8);
  a.stx(8, R8, slot, R0);
  a.jmpImm(JMP.JEQ, R0, 0, none);
  readByte(0, none);
  const v6 = a.label('tcpsock.v6'), ports = a.label('tcpsock.ports');
  a.mov(R1, R0), a.aluImm(ALU.RSH, R1, 4);
  a.jmpImm(JMP.JEQ, R1, 6, v6);
  a.jmpImm(JMP.JNE, R1, 4, none);
  a.aluImm(ALU.AND, R0, 0xf), a.aluImm(ALU.LSH, R0, 2);
  // Each IP version: where the TCP header starts (IPv4: after IHL words; IPv6: after 40 bytes,
  // extension headers not walked), its protocol byte, and its destination and source addresses.
  for (const ip of [
    { family: AF_INET, protocol: 9, daddr: 16, saddr: 12, size: 4 },
    { family: AF_INET6, protocol: 6, daddr: 24, saddr: 8, size: 16 },
  ]) {
    if (ip.family === AF_INET6) a.place(v6), a.movImm(R0, 40);
    a.ldx(8, R1, R8, slot), a.alu(ALU.ADD, R1, R0), a.stx(8, R8, tcpAt, R1);
    readByte(ip.protocol, none);
    a.jmpImm(JMP.JNE, R0, IPPROTO_TCP, none);
    a.st(2, R8, keyAt + K_FAMILY, ip.family);
    a.ldx(8, R3, R8, slot), a.aluImm(ALU.ADD, R3, ip.daddr), readInto(a, R8, keyAt + K_LADDR, ip.size);
    a.ldx(8, R3, R8, slot), a.aluImm(ALU.ADD, R3, ip.saddr), readInto(a, R8, keyAt + K_RADDR, ip.size);
    if (ip.family === AF_INET) a.ja(ports);
  }
  a.place(ports);
  // The TCP header's first word: the source port, then the destination port (network order).
  a.ldx(8, R3, R8, tcpAt);
  a.st(8, FP, -8, 0);
  readInto(a, FP, -8, 4);
  a.jmpImm(JMP.JNE, R0, 0, none);
  a.ldx(4, R0, FP, -8);
  a.mov(R1, R0), a.aluImm(ALU.AND, R1, 0xffff), a.stx(2, R8, keyAt + K_RPORT, R1);
  a.mov(R1, R0), a.aluImm(ALU.RSH, R1, 24), a.aluImm(ALU.AND, R1, 0xff);
  a.aluImm(ALU.RSH, R0, 8), a.aluImm(ALU.AND, R0, 0xff00), a.alu(ALU.OR, R1, R0);
  a.stx(2, R8, keyAt + K_LPORT, R1);
  const lookup = () => {
    a.ldMap(R1, mapFd), a.mov(R2, R8), a.aluImm(ALU.ADD, R2, keyAt);
    a.call(HELPER.map_lookup_elem);
    a.jmpImm(JMP.JNE, R0, 0, found);
  };
  lookup();
  // a listener: no remote end
  a.st(2, R8, keyAt + K_RPORT, 0), a.st(8, R8, keyAt + K_RADDR, 0), a.st(8, R8, keyAt + K_RADDR + 8, 0);
  lookup();
  // on any address
  a.st(8, R8, keyAt + K_LADDR, 0), a.st(8, R8, keyAt + K_LADDR + 8, 0);
  lookup();
  a.ldx(2, R0, R8, keyAt + K_FAMILY);
  a.jmpImm(JMP.JNE, R0, AF_INET, none);
  a.st(2, R8, keyAt + K_FAMILY, AF_INET6);
  lookup();
  a.place(none);
  a.st(8, R8, slot, 0);
  a.ja(done);
  a.place(found);
  a.ldx(8, R1, R0, 0), a.stx(8, R8, slot, R1);
  a.place(done);
}
