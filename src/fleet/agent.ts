// dtraced, the fleet's agent (issue 18): one per machine, as root. It announces its instance and
// answers for its probe catalogue over NATS, enables the DOF clients send through its own device
// -- the DOF reader validates it exactly as for a local dtrace -- and streams the device's records,
// aggregations and drops back. An enabling whose client stops heartbeating is closed, and every
// kernel object with it.

import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { connect, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { LinuxDevice } from '../device/linux/device.js';
import { readDof } from '../dof/reader.js';
import { isSet } from '../options.js';
import { parseProbeSpecifier } from '../providers/listing.js';
import { probeRegistry, type ProbeRegistry } from '../providers/registry.js';
import {
  agentSubject, controlSubject, dataSubject, decode, DISCOVER, encode, fleetServer, HEARTBEAT_MS, SILENCE_MS,
  type Announcement, type Control, type ControlReply, type DataMessage, type EnableReply, type EnableRequest,
  type ListReply, type ListRequest,
} from './protocol.js';

export interface AgentOptions {
  url: string;
  instance: string;
  allowDestructive: boolean;
  log: (line: string) => void;
}

/** How long a message is offered to its stream before it is given up (a server that stays away). */
const KEEP_UNACKED_MS = 30000;
/** How often a running enabling's aggregations are sent. */
const AGGREGATION_MS = 250;

interface Session {
  id: string;
  device: LinuxDevice;
  lastHeartbeat: number;
  running: boolean;
  done: boolean;
  /** Messages the stream has not acknowledged yet, oldest first; one sender keeps their order. */
  outbox: { data: Uint8Array; until: number }[];
  sending: Promise<void> | null;
}

export class Agent {
  private nc!: NatsConnection;
  private js!: JetStreamClient;
  private readonly registry: ProbeRegistry = probeRegistry();
  private readonly sessions = new Map<string, Session>();
  private watchdog?: NodeJS.Timeout;

  constructor(private readonly opts: AgentOptions) {
    // With a fleet, an omitted instance (host) means every instance: this one answers to both.
    this.registry.instanceNames = [opts.instance, 'host'];
  }

  async start(): Promise<void> {
    const server = fleetServer(this.opts.url);
    this.nc = await connect({
      servers: server.servers, name: `dtraced ${this.opts.instance}`, maxReconnectAttempts: -1, reconnectTimeWait: 250,
      ...(server.user !== undefined ? { user: server.user, pass: server.pass } : {}),
    });
    this.js = jetstream(this.nc);
    const inst = this.opts.instance;
    this.nc.subscribe(DISCOVER, { callback: (_e, m) => void m.respond(encode(this.announcement())) });
    this.nc.subscribe(agentSubject(inst, 'list'), { callback: (_e, m) => this.reply(m, () => this.list(decode<ListRequest>(m.data))) });
    this.nc.subscribe(agentSubject(inst, 'enable'), { callback: (_e, m) => this.reply(m, () => this.enable(decode<EnableRequest>(m.data))) });
    this.nc.subscribe(controlSubject(inst, '*'), {
      callback: (_e, m) => this.reply(m, () => this.control(m.subject.split('.').pop()!, decode<Control>(m.data))),
    });
    // Announced once on start; clients discover agents by request.
    this.nc.publish('dtrace.announce', encode(this.announcement()));
    await this.nc.flush();
    this.watchdog = setInterval(() => this.checkHeartbeats(), HEARTBEAT_MS);
    this.opts.log(`dtraced: instance ${inst} serving ${server.shown}`);
  }

  /** Close every enabling and the connection. */
  async stop(): Promise<void> {
    clearInterval(this.watchdog);
    for (const s of this.sessions.values()) this.end(s, 'agent stopped');
    await this.nc?.drain().catch(() => {});
  }

  private announcement(): Announcement {
    return { instance: this.opts.instance, hostname: hostname(), pid: process.pid, providers: this.registry.providers.map((p) => p.name) };
  }

  private reply(m: Msg, f: () => unknown): void {
    let out: unknown;
    try {
      out = f();
    } catch (e) {
      out = { error: (e as Error).message };
    }
    if (out instanceof Promise) {
      out.then((v) => m.respond(encode(v)), (e: Error) => m.respond(encode({ error: e.message })));
    } else m.respond(encode(out));
  }

  private list(req: ListRequest): ListReply {
    const probes = [];
    for (const spec of req.specs) {
      const parsed = parseProbeSpecifier(spec);
      if ('error' in parsed) return { error: parsed.error };
      const found = [];
      for (const d of parsed) {
        const ps = 'id' in d ? [this.registry.byId(d.id)].filter((p) => p !== undefined) : this.registry.match({ ...d.spec, instance: d.instance });
        for (const p of ps) found.push({ id: p.id, provider: p.provider, module: p.module, func: p.func, name: p.name });
      }
      probes.push(found);
    }
    return { probes };
  }

  private enable(req: EnableRequest): EnableReply {
    const dof = req.dof;
    if (!Buffer.isBuffer(dof)) return { error: 'the enabling carries no DOF' };
    // Destructive actions need both the client's -w and the agent's consent.
    const program = readDof(dof);
    if (isSet(program.options, 'destructive') && !(req.destructive && this.opts.allowDestructive)) {
      return { error: `instance ${this.opts.instance} does not allow destructive actions (dtraced -w)` };
    }
    const device = new LinuxDevice(this.registry, { verbose: false, instance: this.opts.instance });
    let enabled;
    try {
      enabled = device.enable(dof);
    } catch (e) {
      device.close();
      throw e;
    }
    const id = /^[A-Za-z0-9-]+$/.test(req.session) ? req.session : randomUUID();
    this.sessions.set(id, { id, device, lastHeartbeat: Date.now(), running: false, done: false, outbox: [], sending: null });
    this.opts.log(`dtraced: ${this.opts.instance}: enabling ${id}: ${enabled.probes.length} probes`);
    return { enabled };
  }

  private control(id: string, c: Control): ControlReply | Promise<ControlReply> {
    const s = this.sessions.get(id);
    if (!s) return { error: `no enabling ${id} on instance ${this.opts.instance}` };
    s.lastHeartbeat = Date.now();
    switch (c.op) {
      case 'heartbeat':
        return { ok: true };
      case 'go':
        s.device.go(() => this.send(s, { buffers: nonEmpty(s.device.drain()) }));
        s.running = true;
        this.pump(s).catch((e: Error) => {
          if (!s.done) this.end(s, `tracing failed: ${e.message}`);
        });
        return { ok: true };
      case 'clear':
        s.device.clearAggregation(c.id, c.read);
        return { ok: true };
      case 'trunc':
        s.device.removeAggregationKeys(c.id, c.read);
        return { ok: true };
      case 'clean':
        s.device.cleanSpeculation(c.id, c.gen);
        return { ok: true };
      case 'stop': {
        // END fires here; its records and the last aggregations travel in the reply.
        s.running = false;
        s.device.stop();
        this.send(s, { ...this.message(s, true), final: true });
        this.end(s);
        // Answered once the stream holds everything, END's records included.
        return this.flushed(s).then(() => ({ ok: true as const }));
      }
    }
  }

  /** Drain at the device's pace; send records as they come, aggregations and liveness periodically. */
  private async pump(s: Session): Promise<void> {
    let lastSent = 0, lastAggs = 0;
    while (s.running && !s.done) {
      // stop() may close the device while this waits: then the wait fails, and the loop ends.
      await s.device.wait(100).catch((e: Error) => {
        if (s.running && !s.done) throw e;
      });
      if (!s.running || s.done) break;
      const now = Date.now();
      const withAggs = now - lastAggs >= AGGREGATION_MS;
      const m = this.message(s, withAggs);
      if (withAggs) lastAggs = now;
      if (m.buffers!.length > 0 || withAggs || now - lastSent >= HEARTBEAT_MS) {
        this.send(s, m);
        lastSent = now;
      }
    }
  }

  private message(s: Session, withAggs: boolean): DataMessage {
    const m: DataMessage = { instance: this.opts.instance, buffers: nonEmpty(s.device.drain()) };
    if (withAggs) {
      m.aggregations = s.device.aggregationSnapshot();
      m.dynamicDrops = s.device.dynamicVariableDrops();
      m.recursionMisses = s.device.recursionMisses();
      m.speculationFailures = s.device.speculationFailures();
      m.aggregationDrops = s.device.aggregationDrops().filter((d) => d.drops > 0);
    }
    return m;
  }

  private send(s: Session, m: Omit<DataMessage, 'instance'>): void {
    s.outbox.push({ data: encode({ instance: this.opts.instance, ...m }), until: Date.now() + KEEP_UNACKED_MS });
    s.sending ??= this.sendAll(s).finally(() => (s.sending = null));
  }

  /** Publish the outbox in order, each message until the stream acknowledges it (a server
   * restart waits); a message whose stream is gone (its client deleted it) is dropped. */
  private async sendAll(s: Session): Promise<void> {
    const subject = dataSubject(s.id);
    while (s.outbox.length > 0) {
      const m = s.outbox[0]!;
      for (;;) {
        try {
          await this.js.publish(subject, m.data, { timeout: 2000 });
          break;
        } catch (e) {
          // A stream its client deleted, or a server away for longer than KEEP_UNACKED_MS.
          if (this.nc.isClosed()) return;
          if (Date.now() > m.until) {
            this.opts.log(`dtraced: ${this.opts.instance}: enabling ${s.id}: a message was not acknowledged: ${(e as Error).message}`);
            break;
          }
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      s.outbox.shift();
    }
  }

  private async flushed(s: Session): Promise<void> {
    while (s.sending) await s.sending;
  }

  private checkHeartbeats(): void {
    const now = Date.now();
    for (const s of this.sessions.values()) {
      if (now - s.lastHeartbeat > SILENCE_MS) this.end(s, 'its client stopped heartbeating');
    }
  }

  /** Release the enabling's kernel objects. */
  private end(s: Session, why?: string): void {
    if (s.done) return;
    s.done = true;
    s.running = false;
    try {
      s.device.close();
    } finally {
      this.sessions.delete(s.id);
      if (why) {
        this.opts.log(`dtraced: ${this.opts.instance}: enabling ${s.id} ended: ${why}`);
        this.send(s, { ended: why });
      }
    }
  }
}

function nonEmpty<T extends { records: Buffer[]; lost: number }>(buffers: T[]): T[] {
  return buffers.filter((b) => b.records.length > 0 || b.lost > 0);
}
