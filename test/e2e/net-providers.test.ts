// The tcp, udp and ip providers (issue 17) on loopback traffic a workload started by -c makes
// (127.0.0.1 only): exact counts through port filters, states, addresses and ports as DTrace's
// translators give them. The reference's ip probes never fire on this kernel, so these
// expectations are the providers' documented meaning, checked on real packets.
import { beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { dtrace, kernelUnavailable } from '../helpers/run.js';

const skip = kernelUnavailable();
const N = 3;

// A listener on PORT; N connections, each sending "hello" and closing (client first).
const TCP = `
import socket, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(('127.0.0.1', port)); srv.listen(8)
for i in range(n):
    c = socket.create_connection(('127.0.0.1', port))
    s, _ = srv.accept()
    c.sendall(b'hello'); s.recv(5)
    c.close(); s.recv(5); s.close()
srv.close()
# a refused connection: nothing listens on the port any more
try:
    socket.create_connection(('127.0.0.1', port))
except ConnectionRefusedError:
    pass
`;

// A dual-stack listener on [::]:PORT; N connections over IPv4 (the accepted sockets are IPv6
// sockets of IPv4 peers) and N over IPv6, each sending "hello".
const TCP6 = `
import socket, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
srv = socket.socket(socket.AF_INET6); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
srv.bind(('::', port)); srv.listen(8)
for host in ['127.0.0.1', '::1']:
    for i in range(n):
        c = socket.create_connection((host, port))
        s, _ = srv.accept()
        c.sendall(b'hello'); s.recv(5)
        c.close(); s.recv(5); s.close()
srv.close()
`;

// N datagrams of 10, 11, ... bytes from a socket on PORT to another socket.
const UDP = `
import socket, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); r.bind(('127.0.0.1', 0))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('127.0.0.1', port))
for i in range(n):
    s.sendto(b'x' * (10 + i), r.getsockname()); r.recv(100)
`;

/** A port nothing listens on now (the kernel's choice for an ephemeral bind). */
function freePort(): number {
  const r = spawnSync('python3', ['-c', "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"], { encoding: 'utf8' });
  return Number(r.stdout.trim());
}

describe.skipIf(skip)(`tcp, udp and ip providers${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dtrace-net-'));
    writeFileSync(path.join(dir, 'tcp.py'), TCP);
    writeFileSync(path.join(dir, 'udp.py'), UDP);
    writeFileSync(path.join(dir, 'tcp6.py'), TCP6);
  });
  const run = (prog: string, script: string, port: number) =>
    dtrace(['-q', '-n', prog, '-c', `python3 ${path.join(dir, script)} ${port} ${N}`], { timeoutMs: 90_000 });

  test('-lv gives the argument types DTrace for Linux gives', () => {
    const types = (desc: string) => {
      const r = dtrace(['-lv', '-n', desc]);
      expect(r.status).toBe(0);
      return [...r.stdout.matchAll(/args\[\d\]: (.*)/g)].map((m) => m[1]);
    };
    // as the reference lists ip:::send and ip:::receive
    expect(types('ip:::send')).toEqual(['pktinfo_t *', 'csinfo_t *', 'ipinfo_t *', 'ifinfo_t *', 'ipv4info_t *', 'ipv6info_t *']);
    expect(types('tcp:::state-change')).toEqual(['pktinfo_t *', 'csinfo_t *', 'ipinfo_t *', 'tcpsinfo_t *', 'tcpinfo_t *', 'tcplsinfo_t *']);
    expect(types('tcp:::send')).toEqual(['pktinfo_t *', 'csinfo_t *', 'ipinfo_t *', 'tcpsinfo_t *', 'tcpinfo_t *']);
    expect(types('udp:::receive')).toEqual(['pktinfo_t *', 'csinfo_t *', 'ipinfo_t *', 'udpsinfo_t *', 'udpinfo_t *']);
  });

  test('tcp:::state-change: every transition of the listener, the clients and the accepted sockets', () => {
    const port = freePort();
    const r = run(`tcp:::state-change /args[3]->tcps_lport == ${port} || args[3]->tcps_rport == ${port}/ {
      @[tcp_state_string[args[5]->tcps_state], tcp_state_string[args[3]->tcps_state]] = count(); }
      END { printa("%s -> %s %@d\\n", @); }`, 'tcp.py', port);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n').sort();
    expect(lines).toEqual([
      // the refused connection: SYN_SENT, then a RST
      `state-close-wait -> state-last-ack ${N}`,
      `state-closed -> state-listen 1`,
      `state-closed -> state-syn-sent ${N + 1}`,
      `state-established -> state-close-wait ${N}`,
      `state-established -> state-fin-wait-1 ${N}`,
      `state-fin-wait-1 -> state-fin-wait-2 ${N}`,
      `state-fin-wait-2 -> state-closed ${N}`,
      `state-last-ack -> state-closed ${N}`,
      `state-listen -> state-closed 1`,
      `state-listen -> state-syn-received ${N}`,
      `state-syn-received -> state-established ${N}`,
      `state-syn-sent -> state-closed 1`,
      `state-syn-sent -> state-established ${N}`,
    ].sort());
  });

  // (The flags are cast to int: every clause's key of one aggregation has the same types.)
  test('connect-request, connect-established, accept-established, connect-refused and accept-refused', () => {
    const port = freePort();
    const r = run(`
      tcp:::connect-request /args[4]->tcp_dport == ${port}/ { @[probename, args[2]->ip_daddr, args[4]->tcp_dport, (int)args[4]->tcp_flags] = count(); }
      tcp:::connect-established /args[3]->tcps_rport == ${port}/ { @[probename, args[3]->tcps_raddr, args[3]->tcps_rport, args[3]->tcps_state] = count(); }
      tcp:::accept-established /args[3]->tcps_lport == ${port}/ { @[probename, args[3]->tcps_laddr, args[3]->tcps_lport, args[3]->tcps_state] = count(); }
      tcp:::connect-refused /args[3]->tcps_rport == ${port}/ { @[probename, args[3]->tcps_raddr, args[3]->tcps_rport, args[3]->tcps_state] = count(); }
      tcp:::accept-refused /args[4]->tcp_sport == ${port}/ { @[probename, args[2]->ip_saddr, args[4]->tcp_sport, (int)args[4]->tcp_flags] = count(); }
      END { printa("%s %s %d %d %@d\\n", @); }`, 'tcp.py', port);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split('\n').sort()).toEqual([
      `accept-established 127.0.0.1 ${port} 1 ${N}`,
      `accept-refused 127.0.0.1 ${port} 20 1`, // RST|ACK
      `connect-established 127.0.0.1 ${port} 1 ${N}`,
      `connect-refused 127.0.0.1 ${port} 2 1`,
      `connect-request 127.0.0.1 ${port} 2 ${N + 1}`, // SYN
    ]);
  });

  test('tcp:::send and receive: SYNs and FINs by destination, and the data segments', () => {
    const port = freePort();
    const r = run(`
      tcp:::send, tcp:::receive /args[4]->tcp_dport == ${port} && (args[4]->tcp_flags & (TH_SYN | TH_FIN))/ {
        @[probename, args[2]->ip_daddr, args[4]->tcp_dport, args[4]->tcp_flags & (TH_SYN | TH_FIN)] = count(); }
      tcp:::send /args[4]->tcp_dport == ${port} && args[2]->ip_plength > args[4]->tcp_offset/ {
        @[probename, args[3]->tcps_raddr, args[3]->tcps_rport, args[2]->ip_plength - args[4]->tcp_offset] = count(); }
      tcp:::receive /args[4]->tcp_dport == ${port} && args[2]->ip_plength > args[4]->tcp_offset/ {
        @[probename, args[3]->tcps_laddr, args[3]->tcps_lport, args[2]->ip_plength - args[4]->tcp_offset] = count(); }
      END { printa("%s %s %d %d %@d\\n", @); }`, 'tcp.py', port);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split('\n').sort()).toEqual([
      `receive 127.0.0.1 ${port} 1 ${N}`, // FIN
      `receive 127.0.0.1 ${port} 2 ${N + 1}`, // SYN
      // the receiving socket's local end, which is the packet's destination
      `receive 127.0.0.1 ${port} 5 ${N}`,
      `send 127.0.0.1 ${port} 1 ${N}`,
      `send 127.0.0.1 ${port} 2 ${N + 1}`,
      `send 127.0.0.1 ${port} 5 ${N}`, // "hello"
    ].sort());
  });

  test('tcp:::receive: the socket a packet arrives for, in the state it is in', () => {
    const port = freePort();
    const r = run(`
      tcp:::receive /args[4]->tcp_dport == ${port} || args[4]->tcp_sport == ${port}/ {
        this->seg = args[4]->tcp_flags & TH_SYN ? (args[4]->tcp_flags & TH_ACK ? "syn-ack" : "syn") :
            args[2]->ip_plength > args[4]->tcp_offset ? "data" : "other";
        @[this->seg, args[4]->tcp_dport == ${port} ? "server" : "client",
            args[3]->tcps_addr == 0 ? "none" : tcp_state_string[args[3]->tcps_state],
            args[1]->cs_addr == args[3]->tcps_addr, args[3]->tcps_addr == 0 || args[3]->tcps_lport == args[4]->tcp_dport] = count(); }
      END { printa("%s %s %s %d %d %@d\\n", @); }`, 'tcp.py', port);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n');
    // Each SYN finds the listener; the last one, after it closed, finds no socket.
    expect(lines).toContain(`syn server state-listen 1 1 ${N}`);
    expect(lines).toContain('syn server none 1 1 1');
    // The SYN-ACK finds the connecting socket, known from the SYN it sent (its port is chosen
    // after its change to SYN_SENT).
    expect(lines).toContain(`syn-ack client state-syn-sent 1 1 ${N}`);
    // "hello" finds the accepted socket.
    expect(lines).toContain(`data server state-established 1 1 ${N}`);
    expect(lines.filter((l) => l.startsWith('other server state-') || l.startsWith('other client state-')).length).toBeGreaterThan(0);
    expect(lines.every((l) => / 1 1 \d+$/.test(l))).toBe(true);
  });

  test('tcp:::receive: IPv6 sockets, and IPv6 sockets of IPv4 peers', () => {
    const port = freePort();
    const r = run(`
      tcp:::receive /args[4]->tcp_dport == ${port} && args[2]->ip_plength > args[4]->tcp_offset/ {
        @[args[2]->ip_ver, tcp_state_string[args[3]->tcps_state], args[3]->tcps_lport] = count(); }
      tcp:::receive /args[4]->tcp_dport == ${port} && (args[4]->tcp_flags & (TH_SYN | TH_ACK)) == TH_SYN/ {
        @[args[2]->ip_ver, tcp_state_string[args[3]->tcps_state], args[3]->tcps_lport] = count(); }
      END { printa("%d %s %d %@d\\n", @); }`, 'tcp6.py', port);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split('\n').sort()).toEqual([
      `4 state-established ${port} ${N}`, // "hello" on an IPv6 socket of an IPv4 peer
      `4 state-listen ${port} ${N}`, // SYN at the IPv6 listener on [::]
      `6 state-established ${port} ${N}`,
      `6 state-listen ${port} ${N}`,
    ].sort());
  });

  test('udp:::send and receive, and ip:::send by destination', () => {
    const port = freePort();
    const r = run(`
      udp:::send /args[4]->udp_sport == ${port}/ { @u[probename, args[3]->udps_laddr, args[3]->udps_lport, args[4]->udp_length] = count(); }
      udp:::receive /args[4]->udp_sport == ${port}/ { @u[probename, args[3]->udps_raddr, args[3]->udps_rport, args[4]->udp_length] = count(); }
      ip:::send, ip:::receive /pid == $target && args[4]->ipv4_protocol == IPPROTO_UDP/ {
        @i[probename, args[2]->ip_daddr, args[4]->ipv4_protostr, args[2]->ip_ver, args[3]->if_name] = count(); }
      END { printa("%s %s %d %d %@d\\n", @u); printa("%s %s %s %d %s %@d\\n", @i); }`, 'udp.py', port);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const udp = (name: string) => Array.from({ length: N }, (_, i) => `${name} 127.0.0.1 ${port} ${8 + 10 + i} 1`);
    expect(r.stdout.trim().split('\n').sort()).toEqual([
      ...udp('receive'), ...udp('send'),
      // loopback delivers in the sender's context
      `receive 127.0.0.1 UDP 4 lo ${N}`,
      `send 127.0.0.1 UDP 4 lo ${N}`,
    ].sort());
  });
});
