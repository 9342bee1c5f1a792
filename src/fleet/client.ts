// The fleet consumer's side of the wire (issue 18): finds the agents, asks for their catalogues,
// ships one DOF to each, and presents them all to the consumer as one Device -- records carry
// their instance, and aggregations merge across instances as they merge across CPUs (an
// instance's CPUs are more CPUs of the same aggregation).

import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, StorageType, type ConsumerMessages } from '@nats-io/jetstream';
import { FAULT_EPID, parseSpecTag, specTag } from '../abi/records.js';
import type {
  AggregationDescription, AggregationEntry, CpuBuffer, Device, EnabledProbe, EnableResult, InstanceDrops,
} from '../device/device.js';
import {
  agentSubject, controlSubject, dataSubject, decode, DISCOVER, encode, fleetServer, HEARTBEAT_MS, SILENCE_MS,
  streamName, type Announcement, type Control, type ControlReply, type DataMessage, type EnableReply, type ListedProbe, type ListReply,
} from './protocol.js';

/** A failure the user sees as `dtrace: MESSAGE`. */
export class FleetError extends Error {}

/** How long discovery waits for agents to answer. */
const DISCOVER_MS = 700;
/** How long a request to one agent may take (enabling compiles and loads eBPF). */
const REQUEST_MS = 30000;

export class Fleet {
  instances: Announcement[] = [];

  private constructor(private readonly nc: NatsConnection, readonly shown: string) {}

  static async open(url: string): Promise<Fleet> {
    let server;
    try {
      server = fleetServer(url);
    } catch (e) {
      throw new FleetError((e as Error).message);
    }
    try {
      const nc = await connect({
        servers: server.servers, name: 'dtrace', maxReconnectAttempts: -1, reconnectTimeWait: 250,
        ...(server.user !== undefined ? { user: server.user, pass: server.pass } : {}),
      });
      return new Fleet(nc, server.shown);
    } catch (e) {
      throw new FleetError(`cannot use fleet ${server.shown}: ${natsReason(e)}`);
    }
  }

  /** Every agent that answers within DISCOVER_MS, by name. */
  async discover(): Promise<Announcement[]> {
    const seen = new Map<string, Announcement>();
    try {
      const replies = await this.nc.requestMany(DISCOVER, encode({}), { maxWait: DISCOVER_MS });
      for await (const m of replies) {
        const a = decode<Announcement>(m.data);
        seen.set(a.instance, a);
      }
    } catch (e) {
      // No responders: no agent is there.
      if (!/no responders/i.test((e as Error).message)) throw new FleetError(`fleet ${this.shown}: ${natsReason(e)}`);
    }
    this.instances = [...seen.values()].sort((a, b) => a.instance.localeCompare(b.instance));
    return this.instances;
  }

  private async request<T>(instance: string, subject: string, body: unknown): Promise<T> {
    try {
      const m = await this.nc.request(subject, encode(body), { timeout: REQUEST_MS });
      return decode<T>(m.data);
    } catch (e) {
      throw new FleetError(`instance ${instance}: ${natsReason(e, subject)}`);
    }
  }

  /** The probes each -l specifier matches on one instance. */
  async list(instance: string, specs: { kind: string; text: string }[]): Promise<ListedProbe[][]> {
    const r = await this.request<ListReply>(instance, agentSubject(instance, 'list'), { specs });
    if ('error' in r) throw new FleetError(r.error);
    return r.probes;
  }

  /** Enable the DOF on these instances: one device over all of them. */
  async enable(instances: string[], dof: Buffer, destructive: boolean): Promise<FleetDevice> {
    const session = randomUUID();
    // The enabling's data go through its own stream: agents publish until acknowledged, and a
    // server restart keeps what it acknowledged.
    try {
      const jsm = await jetstreamManager(this.nc);
      await jsm.streams.add({ name: streamName(session), subjects: [dataSubject(session)], storage: StorageType.File });
    } catch (e) {
      throw new FleetError(`fleet ${this.shown}: cannot create the enabling's stream: ${natsReason(e)}`);
    }
    const device = new FleetDevice(this.nc, session);
    await device.subscribe();
    const replies = await Promise.allSettled(instances.map((inst) =>
      this.request<EnableReply>(inst, agentSubject(inst, 'enable'), { session, dof, destructive })));
    const failed = replies.findIndex((r) => r.status === 'rejected' || 'error' in r.value);
    for (const [i, r] of replies.entries()) {
      if (r.status === 'fulfilled' && 'enabled' in r.value) device.add(instances[i], r.value.enabled);
    }
    if (failed >= 0) {
      await device.closeAll();
      const r = replies[failed];
      throw r.status === 'rejected' ? r.reason as Error
        : new FleetError(`instance ${instances[failed]}: could not enable tracing: ${(r.value as { error: string }).error}`);
    }
    device.startHeartbeats();
    return device;
  }

  async close(): Promise<void> {
    await this.nc.drain().catch(() => {});
  }
}

/** NATS's errors as words for a message. */
function natsReason(e: unknown, subject?: string): string {
  const err = e as Error & { code?: string };
  const text = `${err.message ?? e}`;
  if (/authorization|authentication/i.test(text)) return 'not authorized (check the user and password in the fleet URL)';
  if (/permissions? violation/i.test(text)) return `not permitted${subject ? ` to publish to ${subject}` : ''}`;
  if (/no responders/i.test(text)) return 'no agent answers (dtraced not running?)';
  if (/timeout/i.test(text)) return `no answer${subject ? ` on ${subject}` : ''} (timed out; not permitted?)`;
  if (/ECONNREFUSED|CONNECTION_REFUSED/i.test(text)) return 'connection refused';
  return text;
}

interface Member {
  instance: string;
  /** The agent's epid -> ours. */
  epids: Map<number, number>;
  lastHeard: number;
  lost: boolean;
  ended: boolean;
  /** Its last message (after stop) has arrived. */
  final: boolean;
  aggregations: AggregationEntry[];
  /** Its drops not yet reported: dynamic variables, recursion misses; each CPU's aggregation drops so far. */
  dynamicDrops: number;
  recursionMisses: number;
  busy: number;
  unavailable: number;
  aggregationDrops: Map<number, number>;
}

/**
 * The fleet as one device. Agents send data as it comes; drain() and aggregationSnapshot() give
 * what has arrived. Epids are renumbered across instances; an instance's CPUs keep their numbers.
 */
export class FleetDevice implements Device {
  private readonly members = new Map<string, Member>();
  private readonly probes: EnabledProbe[] = [];
  private aggregations: AggregationDescription[] = [];
  private matched: number[] = [];
  /** Per instance: what each ECB description matched there. */
  readonly matchedOn = new Map<string, number[]>();
  private pending: CpuBuffer[] = [];
  private wake: (() => void) | null = null;
  private messages?: ConsumerMessages;
  private heartbeat?: NodeJS.Timeout;
  /** Speculations renumbered across instances (ids are 16 bits): (instance, id) -> ours, and back. */
  private specIds = new Map<string, number>();
  private specOf: { instance: string; id: number }[] = [];
  /** Instances lost since the last call of lostInstances(). */
  private newlyLost: string[] = [];

  constructor(private readonly nc: NatsConnection, private readonly session: string) {}

  /** Read the enabling's stream in order (an ordered consumer: it resumes after a server restart). */
  async subscribe(): Promise<void> {
    const consumer = await jetstream(this.nc).consumers.get(streamName(this.session));
    // Short pulls: after a server restart the consumer is made again within a second or two.
    this.messages = await consumer.consume({ expires: 1000, idle_heartbeat: 500 });
    void (async () => {
      for await (const m of this.messages!) {
        let d: DataMessage;
        try {
          d = decode<DataMessage>(m.data);
        } catch {
          continue; // not an agent's message of this version: nothing of ours
        }
        this.receive(d);
      }
    })().catch(() => {});
  }

  add(instance: string, r: EnableResult): void {
    const epids = new Map<number, number>();
    for (const ep of r.probes) {
      const epid = this.probes.length + 1;
      epids.set(ep.epid, epid);
      this.probes.push({ ...ep, epid, probe: { ...ep.probe, instance } });
    }
    this.members.set(instance, { instance, epids, lastHeard: Date.now(), lost: false, ended: false, final: false, aggregations: [],
      dynamicDrops: 0, recursionMisses: 0, busy: 0, unavailable: 0, aggregationDrops: new Map(),
    });
    if (this.aggregations.length === 0) this.aggregations = r.aggregations;
    r.matched.forEach((n, i) => (this.matched[i] = (this.matched[i] ?? 0) + n));
    this.matchedOn.set(instance, r.matched);
  }

  /** The merged enabling, and how many instances matched something. */
  result(): EnableResult & { instances: number } {
    return {
      probes: this.probes, aggregations: this.aggregations, matched: this.matched,
      instances: new Set(this.probes.map((p) => p.probe.instance)).size,
    };
  }

  get instanceNames(): string[] {
    return [...this.members.keys()];
  }

  startHeartbeats(): void {
    this.heartbeat = setInterval(() => {
      const now = Date.now();
      for (const m of this.members.values()) {
        if (m.lost || m.ended) continue;
        this.nc.publish(controlSubject(m.instance, this.session), encode({ op: 'heartbeat' }));
        if (now - m.lastHeard > SILENCE_MS) {
          m.lost = true;
          this.newlyLost.push(m.instance);
          this.wake?.();
        }
      }
    }, HEARTBEAT_MS);
  }

  /** Instances that went silent (or ended the enabling) since the last call. */
  lostInstances(): string[] {
    const l = this.newlyLost;
    this.newlyLost = [];
    return l;
  }

  /** Every instance still tracing. */
  get live(): number {
    return [...this.members.values()].filter((m) => !m.lost && !m.ended).length;
  }

  private receive(d: DataMessage): void {
    const m = this.members.get(d.instance);
    if (!m || m.lost || m.final) return;
    if (d.final) m.final = true;
    m.lastHeard = Date.now();
    this.take(m, d);
    if (d.ended) {
      m.ended = true;
      this.newlyLost.push(m.instance);
    }
    this.wake?.();
  }

  private take(m: Member, d: DataMessage): void {
    for (const b of d.buffers ?? []) {
      for (const rec of b.records) {
        const raw = rec.readUInt32LE(0);
        if (raw === FAULT_EPID) continue;
        const epid = m.epids.get(raw);
        if (epid !== undefined) rec.writeUInt32LE(epid, 0);
        // Every instance numbers its speculations from 1: the consumer holds them apart.
        const tag = rec.readUInt32LE(4);
        if (tag !== 0) {
          const { kind, id, gen } = parseSpecTag(tag);
          rec.writeUInt32LE(specTag(kind, this.speculationId(m.instance, id), gen), 4);
        }
      }
      this.pending.push({ ...b, instance: m.instance });
    }
    if (d.aggregations) m.aggregations = d.aggregations;
    m.dynamicDrops += d.dynamicDrops ?? 0;
    m.recursionMisses += d.recursionMisses ?? 0;
    m.busy += d.speculationFailures?.busy ?? 0;
    m.unavailable += d.speculationFailures?.unavailable ?? 0;
    for (const a of d.aggregationDrops ?? []) m.aggregationDrops.set(a.cpu, a.drops);
  }

  private speculationId(instance: string, id: number): number {
    const k = `${instance}:${id}`;
    let ours = this.specIds.get(k);
    if (id === 0 || (ours === undefined && this.specOf.length >= 0xffff)) return id;
    if (ours === undefined) {
      this.specOf.push({ instance, id });
      ours = this.specOf.length;
      this.specIds.set(k, ours);
    }
    return ours;
  }

  private async toAll(c: Control): Promise<{ instance: string; reply?: ControlReply; error?: string }[]> {
    const live = [...this.members.values()].filter((m) => !m.lost && !m.ended);
    return Promise.all(live.map((m) => this.toOne(m.instance, c)));
  }

  private async toOne(instance: string, c: Control): Promise<{ instance: string; reply?: ControlReply; error?: string }> {
    const m = this.members.get(instance);
    if (!m || m.lost || m.ended) return { instance, error: 'not running' };
    try {
      const r = await this.nc.request(controlSubject(instance, this.session), encode(c), { timeout: REQUEST_MS });
      const reply = decode<ControlReply>(r.data);
      return 'error' in reply ? { instance, error: reply.error } : { instance, reply };
    } catch (e) {
      return { instance, error: natsReason(e) };
    }
  }

  /** BEGIN everywhere, then every other probe (go() below is the Device's form, without waiting). */
  async goAll(): Promise<string[]> {
    const r = await this.toAll({ op: 'go' });
    return r.filter((x) => x.error).map((x) => `instance ${x.instance}: could not enable tracing: ${x.error}`);
  }

  /** END everywhere; its records and the last aggregations arrive with the replies. */
  async stopAll(): Promise<void> {
    clearInterval(this.heartbeat);
    const replies = await this.toAll({ op: 'stop' });
    // Each stopped agent's last message is in the stream before its reply: wait to read it.
    const stopped = replies.filter((r) => r.reply).map((r) => this.members.get(r.instance)!);
    const start = Date.now();
    while (stopped.some((m) => !m.final) && Date.now() - start < REQUEST_MS) await new Promise((r) => setTimeout(r, 20));
    for (const m of this.members.values()) m.ended = true;
    await this.release();
  }

  /** Stop reading and delete the enabling's stream. */
  private async release(): Promise<void> {
    await this.messages?.close().catch(() => {});
    this.messages = undefined;
    try {
      await (await jetstreamManager(this.nc)).streams.delete(streamName(this.session));
    } catch { /* gone with the server, or not permitted: it ages out */ }
  }

  /** Close the enabling on every instance that has it (enabling failed elsewhere, or a second ^C). */
  async closeAll(): Promise<void> {
    clearInterval(this.heartbeat);
    await this.toAll({ op: 'stop' });
    await this.release();
  }

  // Device
  enable(): EnableResult {
    return this.result();
  }
  go(afterBegin?: () => void): void {
    afterBegin?.();
  }
  stop(): void {}
  wait(ms: number): Promise<void> {
    if (this.pending.length > 0 || this.newlyLost.length > 0) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done(): void {
        clearTimeout(t);
        resolve();
      }
      this.wake = () => {
        this.wake = null;
        done();
      };
    });
  }
  drain(): CpuBuffer[] {
    const p = this.pending;
    this.pending = [];
    return p;
  }
  aggregationSnapshot(): AggregationEntry[] {
    // One entry per key: every instance's CPUs side by side, as the consumer merges CPUs.
    const merged = new Map<string, AggregationEntry>();
    for (const m of this.members.values()) {
      for (const e of m.aggregations) {
        const k = `${e.id}:${e.key.toString('hex')}`;
        const have = merged.get(k);
        if (have) have.perCpu.push(...e.perCpu);
        else merged.set(k, { id: e.id, key: e.key, perCpu: [...e.perCpu] });
      }
    }
    return [...merged.values()];
  }
  close(): void {
    clearInterval(this.heartbeat);
  }
  // Drops are each instance's, reported naming it (instanceDrops, and the buffers' and aggregation drops' instance).
  dynamicVariableDrops(): number {
    return 0;
  }
  recursionMisses(): number {
    return 0;
  }
  instanceDrops(): InstanceDrops[] {
    return [...this.members.values()].map((m) => {
      const r = { instance: m.instance, dynamic: m.dynamicDrops, recursion: m.recursionMisses, busy: m.busy, unavailable: m.unavailable };
      m.dynamicDrops = m.recursionMisses = m.busy = m.unavailable = 0;
      return r;
    });
  }
  aggregationDrops(): { cpu: number; drops: number; instance: string }[] {
    return [...this.members.values()].flatMap((m) => [...m.aggregationDrops].map(([cpu, drops]) => ({ cpu, drops, instance: m.instance })));
  }
  /** The members' own entries of what the consumer read (the merge keeps every instance's). */
  private readFrom(m: { aggregations: AggregationEntry[] }, id: number, read: AggregationEntry[]): AggregationEntry[] {
    const keys = new Set(read.filter((e) => e.id === id).map((e) => e.key.toString('hex')));
    return m.aggregations.filter((e) => e.id === id && keys.has(e.key.toString('hex')));
  }
  cleanSpeculation(id: number, generation: number): void {
    const s = this.specOf[id - 1];
    if (s) void this.toOne(s.instance, { op: 'clean', id: s.id, gen: generation });
  }
  clearAggregation(id: number, read: AggregationEntry[]): void {
    for (const m of this.members.values()) {
      void this.toOne(m.instance, { op: 'clear', id, read: this.readFrom(m, id, read) });
      m.aggregations = m.aggregations.filter((e) => e.id !== id);
    }
  }
  removeAggregationKeys(id: number, read: AggregationEntry[]): void {
    for (const m of this.members.values()) {
      const mine = this.readFrom(m, id, read);
      void this.toOne(m.instance, { op: 'trunc', id, read: mine });
      const gone = new Set(mine.map((e) => e.key.toString('hex')));
      m.aggregations = m.aggregations.filter((e) => e.id !== id || !gone.has(e.key.toString('hex')));
    }
  }
}
