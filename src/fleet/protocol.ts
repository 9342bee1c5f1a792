// The fleet's wire (issue 18): the NATS subjects a fleet consumer (dtrace -x fleet=...) and its
// agents (dtraced) talk on, and the JSON their messages carry. NATS itself is imported only by
// client.ts and agent.ts, and only when a fleet is configured.
//
// Subjects (NATS permissions per instance follow them: a client allowed `dtrace.agent.a.>` can
// enable only on instance a):
//   dtrace.discover                     request-many: every agent answers with its Announcement
//   dtrace.agent.INST.list              request: ListRequest -> ListReply (the probe catalogue)
//   dtrace.agent.INST.enable            request: EnableRequest -> EnableReply
//   dtrace.agent.INST.ctl.SESSION       request: Control -> ControlReply (go, stop, clear, trunc, heartbeat)
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
  dof: string; // base64
  /** The client allows destructive actions (-w); the agent must allow them too. */
  destructive: boolean;
}
export type EnableReply = { enabled: EnableResult } | { error: string };

export type Control =
  | { op: 'go' }
  | { op: 'stop' }
  | { op: 'heartbeat' }
  // clear() and trunc() carry the entries the client printed from this instance: the agent's
  // device takes exactly those away, keeping what probes added since (device/linux/agg-carry.ts).
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
  aggregationDrops?: { cpu: number; drops: number }[];
  /** The enabling is over on the agent (its client stopped heartbeating, or it failed). */
  ended?: string;
  /** The last message of an enabling that stopped (END's records, the last aggregations). */
  final?: boolean;
}

/** The JetStream stream of one enabling's data (a stream name has no dots or dashes). */
export const streamName = (session: string): string => `DTRACE_${session.replace(/[^A-Za-z0-9_]/g, '_')}`;

// JSON with Buffers (base64) and bigints (decimal strings), tagged.
export function encode(value: unknown): Uint8Array {
  return Buffer.from(JSON.stringify(value, function (this: Record<string, unknown>, key, v: unknown) {
    const raw = this[key];
    if (typeof raw === 'bigint') return { $b: raw.toString() };
    if (Buffer.isBuffer(raw)) return { $x: raw.toString('base64') };
    return v;
  }));
}

export function decode<T>(data: Uint8Array): T {
  return JSON.parse(Buffer.from(data).toString('utf8'), (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      if (typeof o.$b === 'string' && Object.keys(o).length === 1) return BigInt(o.$b);
      if (typeof o.$x === 'string' && Object.keys(o).length === 1) return Buffer.from(o.$x, 'base64');
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
