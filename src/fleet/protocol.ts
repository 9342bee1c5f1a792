// The fleet's wire (issue 18): the NATS subjects a fleet consumer (dtrace -x fleet=...) and its
// agents (dtraced) talk on, and the messages they carry (JSON headers, records as bytes: encode()). NATS itself is imported only by
// client.ts and agent.ts, and only when a fleet is configured.
//
// Subjects (NATS permissions per instance follow them: a client allowed `dtrace.agent.a.>` can
// enable only on instance a):
//   dtrace.discover                     request-many: every agent answers with its Announcement
//   dtrace.agent.INST.list              request: ListRequest -> ListReply (the probe catalogue)
//   dtrace.agent.INST.enable            request: EnableRequest -> EnableReply
//   dtrace.agent.INST.ctl.SESSION       request: Control -> ControlReply (go, stop, clear, trunc, clean, heartbeat)
//   dtrace.data.SESSION                 agent -> client: DataMessage (records, aggregations, drops, liveness),
//                                       through the JetStream stream DTRACE_SESSION the client creates:
//                                       an agent sends each message until the server acknowledges it

import type { AggregationEntry, CpuBuffer, EnableResult } from '../device/device.js';

export const DISCOVER = 'dtrace.discover';
export const agentSubject = (instance: string, what: 'list' | 'enable'): string => `dtrace.agent.${instance}.${what}`;
export const controlSubject = (instance: string, session: string): string => `dtrace.agent.${instance}.ctl.${session}`;
export const dataSubject = (session: string): string => `dtrace.data.${session}`;

/** How often an agent says it is alive on a session's data subject, and a client heartbeats. */
export const HEARTBEAT_MS = 500;
/** An agent whose client has not heartbeat for this long ends the enabling; a client whose agent
 * has been silent for this long reports the instance lost. */
export const SILENCE_MS = 4000;

/** An instance name is one NATS subject token (it names the agent's subjects). */
export const INSTANCE_NAME = /^[A-Za-z0-9_-]+$/;

export interface Announcement {
  instance: string;
  hostname: string;
  pid: number;
  /** Providers whose probes the agent lists, for a glance at its catalogue. */
  providers: string[];
}

export interface ListRequest {
  specs: { kind: string; text: string }[];
}
export interface ListedProbe {
  id: number;
  provider: string;
  module: string;
  func: string;
  name: string;
}
/** The probes each spec matched, in spec order (an empty list: it matched none here). */
export type ListReply = { probes: ListedProbe[][] } | { error: string };

export interface EnableRequest {
  session: string;
  dof: Buffer;
  /** The client allows destructive actions (-w); the agent must allow them too. */
  destructive: boolean;
}
export type EnableReply = { enabled: EnableResult } | { error: string };

export type Control =
  | { op: 'go' }
  | { op: 'stop' }
  | { op: 'heartbeat' }
  // The consumer's speculation cleaner: speculation `id` of generation `gen` may be INACTIVE again.
  | { op: 'clean'; id: number; gen: number }
  // clear() and trunc() carry the entries the client printed from this instance: the agent's
  // device takes exactly those away, keeping what probes added since (device/linux/agg-switch.ts).
  | { op: 'clear'; id: number; read: AggregationEntry[] }
  | { op: 'trunc'; id: number; read: AggregationEntry[] };
export type ControlReply = { ok: true } | { error: string };

/** What an agent streams back. */
export interface DataMessage {
  instance: string;
  buffers?: CpuBuffer[];
  /** The whole of every aggregation, as of this message. */
  aggregations?: AggregationEntry[];
  /** Drops on the agent (dynamic variables and recursion misses since its last message, each
   * CPU's aggregation drops so far); a buffer's lost records travel in the buffer. */
  dynamicDrops?: number;
  recursionMisses?: number;
  speculationFailures?: { busy: number; unavailable: number };
  aggregationDrops?: { cpu: number; drops: number }[];
  /** The enabling is over on the agent (its client stopped heartbeating, or it failed). */
  ended?: string;
  /** The last message of an enabling that stopped (END's records, the last aggregations). */
  final?: boolean;
}

/** The JetStream stream of one enabling's data (a stream name has no dots or dashes). */
export const streamName = (session: string): string => `DTRACE_${session.replace(/[^A-Za-z0-9_]/g, '_')}`;

// A message is a frame: a version byte, the u32 length of a JSON header, then the bytes of every
// Buffer the value holds, side by side. In the header a Buffer is {$x: [offset, length]} into those
// bytes, an array of Buffers (a CPU buffer's records) {$xs: [offset, count]} (at offset: count u32
// lengths, then the Buffers), and a bigint {$b: "decimal"}: records travel as they are, without
// base64 or a JSON entry each.
const FRAME_VERSION = 1;

export function encode(value: unknown): Uint8Array {
  const blobs: Buffer[] = [];
  let size = 0;
  const put = (b: Buffer): number => {
    blobs.push(b);
    size += b.length;
    return size - b.length;
  };
  const header = Buffer.from(JSON.stringify(value, function (this: Record<string, unknown>, key, v: unknown) {
    const raw = this[key];
    if (typeof raw === 'bigint') return { $b: raw.toString() };
    if (Buffer.isBuffer(raw)) return { $x: [put(raw), raw.length] };
    if (Array.isArray(raw) && raw.length > 0 && raw.every((x) => Buffer.isBuffer(x))) {
      // Their lengths (u32 each), then their bytes: no JSON per record.
      const lengths = Buffer.alloc(4 * raw.length);
      raw.forEach((x: Buffer, i) => lengths.writeUInt32LE(x.length, 4 * i));
      const at = put(lengths);
      for (const x of raw as Buffer[]) put(x);
      return { $xs: [at, raw.length] };
    }
    return v;
  }));
  const head = Buffer.alloc(5);
  head.writeUInt8(FRAME_VERSION, 0);
  head.writeUInt32LE(header.length, 1);
  return Buffer.concat([head, header, ...blobs]);
}

export function decode<T>(data: Uint8Array): T {
  const frame = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (frame.length < 5 || frame[0] !== FRAME_VERSION) throw new Error('not a dtrace fleet message (another version of dtrace?)');
  const headerEnd = 5 + frame.readUInt32LE(1);
  if (headerEnd > frame.length) throw new Error('a truncated dtrace fleet message');
  const blob = frame.subarray(headerEnd);
  const slice = (at: number, length: number): Buffer => {
    if (!Number.isInteger(at) || !Number.isInteger(length) || at < 0 || length < 0 || at + length > blob.length) {
      throw new Error('a dtrace fleet message refers past its end');
    }
    return blob.subarray(at, at + length);
  };
  return JSON.parse(frame.toString('utf8', 5, headerEnd), (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      if (Object.keys(o).length !== 1) return v;
      if (typeof o.$b === 'string') return BigInt(o.$b);
      if (Array.isArray(o.$x)) return slice(o.$x[0] as number, o.$x[1] as number);
      if (Array.isArray(o.$xs)) {
        const count = o.$xs[1] as number;
        const lengths = slice(o.$xs[0] as number, 4 * count);
        let at = (o.$xs[0] as number) + 4 * count;
        const out = new Array<Buffer>(count);
        for (let i = 0; i < count; i++) {
          const n = lengths.readUInt32LE(4 * i);
          out[i] = slice(at, n);
          at += n;
        }
        return out;
      }
    }
    return v;
  }) as T;
}

/** A NATS URL's server and credentials (nats://user:pass@host:port), and the URL to show without them. */
export function fleetServer(url: string): { servers: string; user?: string; pass?: string; shown: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`invalid fleet URL ${url}`);
  }
  if (u.protocol !== 'nats:') throw new Error(`invalid fleet URL ${url}: not nats://`);
  const servers = `${u.hostname}:${u.port || '4222'}`;
  return {
    servers,
    ...(u.username ? { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } : {}),
    shown: `nats://${servers}`,
  };
}
