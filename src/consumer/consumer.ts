// The consumer: drains the device's per-CPU buffers, decodes each record by its enabled probe's
// description, and prints it as dtrace(1) does; at the end, snapshots and prints aggregations.

import * as D from '../dif/constants.js';
import type {
  CpuBuffer, Device, EnableResult, EnabledProbe,
  RecordDescription,
} from '../device/device.js';
import { DBLERROR_TAG, FAULT_EPID, RECORD_HEADER_SIZE } from '../abi/records.js';
import { Aggregations, aggSortOptions } from './aggregations.js';
import { type ActionRenderer, planActions, walkActions } from './walk.js';
import { Reopened, runSystem } from './destructive.js';
import { formatPrintf, type RecordPlan } from './printf.js';
import { decode } from './decode.js';
import { Speculations } from './speculation.js';
import { dropInstance, formatTraceValue, formatTracemem, probeHeader, recordPrefix } from './records.js';
import { FlowIndent, flowHeading } from './flowindent.js';
import { formatPrint, printSize } from './print.js';
import { BufferPolicy, type BufferPolicyName } from './bufpolicy.js';
import { configureStacks, formatSymbolicRecord, printfSymbols } from './stacks.js';
import { JsonOutput, parseOformat } from './oformat.js';
import { tagDrops } from './drops.js';
import { TemporalOrder, type TimedRecord } from './temporal.js';
import { setoptError } from './setopt.js';
import { OptionError, optionDefault, setOptionWhileTracing } from '../options.js';
import { BUFDATA_AGGFORMAT, BUFDATA_AGGLAST, BUFDATA_AGGVAL, type BufferedPiece } from './buffered.js';

export interface ConsumerOptions {
  quiet: boolean;
  strsize: number;
  out: (text: string) => void;
  /** Writes what `out` holds back: before system() runs a command that prints to the same output. */
  flush?: () => void;
  /** Empties the output file, if the output is one (ftruncate()). */
  truncate?: () => void;
  err: (text: string) => void;
  /**
   * Options (-x and #pragma D option) the consumer honours: the aggregation sorting options, ...
   * setopt() changes them here, so the trace loop sees new rates (cli/timers.ts).
   */
  options?: Map<string, string>;
  /** -F / -x flowindent: indent by function entry and return (consumer/flowindent.ts). */
  flowindent?: boolean;
  /** -x bufpolicy and -x bufsize (consumer/bufpolicy.ts); switch when absent. */
  bufpolicy?: BufferPolicyName;
  bufsize?: number;
  /**
   * -B: each piece of libdtrace's output goes here (buffered.ts) instead of to `out`, and what
   * dtrace(1) prints itself -- the heading, each record's prefix and newline -- is not printed.
   */
  buffered?: (piece: BufferedPiece) => void;
}

/** What one drain of the buffers took, and when it began. */
export interface Drained {
  buffers: CpuBuffer[];
  readAt: bigint;
  /** BEGIN's drain: its records print before what other probes (ERROR) recorded meanwhile. */
  begin?: true;
}

export class Consumer {
  private byEpid = new Map<number, EnabledProbe>();
  /** Each enabled probe's records compiled to text (walk.ts planActions), null where they are walked. */
  private plans = new Map<number, RecordPlan | null>();
  private headerPrinted = false;
  private flow: FlowIndent | null = null;
  private rawbytes: boolean;
  private reopened: Reopened;
  /** -q / -x quiet, which setopt() may change while tracing. */
  private quiet: boolean;
  private options: Map<string, string>;
  private policy: BufferPolicy;
  /** Set when an exit() record has been consumed: the exit status. */
  exitStatus: number | null = null;
  /** The time stamp (ns, CLOCK_MONOTONIC) of the first exit() record consumed; null before. */
  exitAt: bigint | null = null;
  /** The time stamp of the record being consumed. */
  private stamp = 0n;
  errors = 0;

  private aggs: Aggregations;
  private speculations: Speculations;
  /** Symbol lookups for printf's %a, %A and %k. */
  private symbols: ReturnType<typeof printfSymbols>;
  /** -x oformat=json: records, drops and aggregations go to one JSON document (oformat.ts). */
  private json: JsonOutput | null = null;
  /** -x temporal: every CPU's records merged in time order (temporal.ts). */
  private temporal: TemporalOrder | null = null;

  constructor(private device: Device, private enabled: EnableResult, private opts: ConsumerOptions) {
    // Everything printed goes where freopen() last sent it.
    this.reopened = new Reopened(opts.out, opts.err);
    this.opts = opts = { ...opts, out: this.reopened.out };
    for (const p of enabled.probes) this.byEpid.set(p.epid, p);
    this.quiet = opts.quiet;
    this.options = opts.options ?? new Map();
    configureStacks(opts.options);
    this.symbols = printfSymbols();
    this.speculations = new Speculations(device);
    if (opts.flowindent) this.flow = new FlowIndent();
    this.rawbytes = optionSet(opts.options, 'rawbytes');
    this.policy = new BufferPolicy(opts.bufpolicy ?? 'switch', opts.bufsize ?? Number(optionDefault('bufsize')), (r) => this.isEndRecord(r));
    this.aggs = new Aggregations(device, enabled.aggregations, { ...aggSortOptions(opts.options), aggzoom: optionSet(opts.options, 'aggzoom'), strsize: opts.strsize, ...printfSymbols() });
    const oformat = parseOformat(opts.options?.get('oformat'));
    if (oformat.format === 'json') this.json = new JsonOutput(opts.out, oformat.pretty);
    if (optionSet(opts.options, 'temporal')) this.temporal = new TemporalOrder();
  }

  /** Drain every CPU buffer once and print what it held (or what `drained` took earlier). */
  consume(drained: Drained = this.drain()): void {
    this.aggs.newPass();
    const beginExited = drained.begin && drained.buffers.some((b) => b.records.some((r) => this.exitRecord(r) !== undefined));
    this.process(beginExited ? this.beginFirst(drained.buffers) : drained.buffers, drained.readAt);
    this.aggs.rememberProcesses();
  }

  /** Take what the buffers hold now, to print later with consume(): BEGIN's records. */
  drain(): Drained {
    const readAt = TemporalOrder.now();
    return { buffers: this.device.drain(), readAt, begin: true };
  }

  /**
   * When BEGIN called exit(), as dtrace(1) consumes BEGIN's buffer (dt_consume_begin): the BEGIN
   * probe's records (and its faults) first, then the rest -- what an ERROR clause printed for a
   * BEGIN fault comes after every BEGIN clause's output. Otherwise each record in its turn: the
   * ERROR clause's output right after the faulting clause's (reference DTrace for Linux 2.0.1).
   */
  private beginFirst(buffers: CpuBuffer[]): CpuBuffer[] {
    const isBegin = (raw: Buffer): boolean => {
      let epid = raw.readUInt32LE(0);
      if (epid === FAULT_EPID) epid = raw.readUInt32LE(RECORD_HEADER_SIZE);
      const p = this.byEpid.get(epid)?.probe;
      return p !== undefined && p.provider === 'dtrace' && p.name === 'BEGIN';
    };
    const first = buffers.map((b) => ({ ...b, records: b.records.filter(isBegin) }));
    const rest = buffers.map((b) => ({ cpu: b.cpu, lost: 0, records: b.records.filter((r) => !isBegin(r)) }));
    return [...first, ...rest.filter((b) => b.records.length > 0)];
  }

  /** The status check (at -x statusrate): dynamic variable and speculation drops, as DTrace reports them. */
  status(): void {
    const fleet = this.device.instanceDrops?.();
    const counts = fleet ?? [{ instance: undefined, dynamic: this.device.dynamicVariableDrops(), recursion: this.device.recursionMisses() }];
    for (const { instance, dynamic: dyn, recursion: missed } of counts) {
      const at = dropInstance(instance);
      if (dyn > 0) this.drop(`dtrace: ${at}${dyn} dynamic variable drop${dyn === 1 ? '' : 's'}\n`);
      // No DTrace message fits (its probes cannot be refused): worded as its drops, with the cause.
      if (missed > 0) this.drop(`dtrace: ${at}${missed} probe firing${missed === 1 ? '' : 's'} lost (CPU busy in another BPF program)\n`);
    }
    this.speculations.report((text) => this.drop(text), fleet);
  }

  /** The aggregation snapshot (at -x aggrate): its drops, "N aggregation drops on CPU C". */
  snapshotAggregations(): void {
    const drops = this.aggs.drops();
    if (drops) this.drop(drops);
  }

  /** A drop report: on stderr, or DROP entries of the JSON document. */
  private drop(text: string): void {
    if (this.json) this.json.drops(text);
    else this.opts.err(optionSet(this.options, 'droptags') ? tagDrops(text) : text);
  }

  /** The speculation cleaner (at -x cleanrate): free the speculations whose markers were seen. */
  clean(): void {
    this.speculations.clean();
  }

  /** fill: a buffer has filled; tracing should stop as if exit() had been called. */
  get filled(): boolean {
    return this.policy.filled;
  }

  /** At the end of tracing: ring prints what the buffers kept; temporal what it held back. */
  flush(): void {
    this.print(this.policy.policy === 'ring' ? this.policy.flush() : [], null);
  }

  /** Print drained buffers; `readAt` is when their draining began (null: nothing more will come). */
  process(buffers: CpuBuffer[], readAt: bigint | null = null): void {
    if (this.policy.policy === 'ring') for (const b of buffers) b.records.forEach((r) => this.noteExit(r));
    this.print(this.policy.admit(buffers), readAt);
  }

  private isEndRecord(raw: Buffer): boolean {
    const p = this.byEpid.get(raw.readUInt32LE(0))?.probe;
    return p !== undefined && p.provider === 'dtrace' && p.name === 'END';
  }

  /** The exit() action's record description when this record holds one. */
  private exitRecord(raw: Buffer): RecordDescription | undefined {
    return this.byEpid.get(raw.readUInt32LE(0))?.records.find((x) => x.action === D.DTRACEACT_EXIT);
  }

  /** ring: exit() must end tracing even though its record is printed only at the end. */
  private noteExit(raw: Buffer): void {
    const r = this.exitRecord(raw);
    if (!r || this.exitStatus !== null) return;
    const v = decode(r, raw.subarray(RECORD_HEADER_SIZE));
    this.exitStatus = v.kind === 'int' ? Number(v.value) : 0;
    this.exitAt ??= raw.readBigUInt64LE(8);
  }

  private print(buffers: CpuBuffer[], readAt: bigint | null): void {
    for (const b of buffers) if (b.lost > 0) this.drop(`dtrace: ${dropInstance(b.instance)}${b.lost} drop${b.lost === 1 ? '' : 's'} on CPU ${b.cpu}\n`);
    // Faults in ERROR clauses, reported as dtrace(1)'s status check does, before the records.
    let dbl = 0;
    for (const b of buffers) for (const r of b.records) if (isDoubleError(r)) dbl++;
    if (dbl > 0) this.drop(`dtrace: ${dbl} error${dbl === 1 ? '' : 's'} in ERROR probe enabling\n`);
    // Each CPU's records in turn (nothing made per record: a storm's drains hold millions) or,
    // under temporal, every CPU's merged in time order; -F looks ahead in the list.
    if (!this.temporal && !this.flow) {
      for (const b of buffers) for (const raw of b.records) this.record(b.cpu, raw);
      return;
    }
    const records: TimedRecord[] = this.temporal
      ? this.temporal.merge(buffers, readAt)
      : buffers.flatMap((b) => b.records.map((raw) => ({ cpu: b.cpu, raw })));
    records.forEach((r, i) => this.record(r.cpu, r.raw, this.flow ? this.nextProbe(records, i) : null));
  }

  /** -F looks ahead: the enabled probe of the next (non-fault) record from the same CPU. */
  private nextProbe(records: TimedRecord[], i: number): EnabledProbe | null {
    for (let j = i + 1; j < records.length; j++) {
      if (records[j].cpu !== records[i].cpu) continue;
      const epid = records[j].raw.readUInt32LE(0);
      if (epid !== FAULT_EPID) return this.byEpid.get(epid) ?? null;
    }
    return null;
  }

  private record(cpu: number, raw: Buffer, next: EnabledProbe | null = null): void {
    const epid = raw.readUInt32LE(0);
    if (epid === FAULT_EPID) {
      if (isDoubleError(raw)) return; // counted by print()
      return this.fault(raw.subarray(RECORD_HEADER_SIZE));
    }
    // A speculation's record or commit/discard marker: print what it releases (speculation.ts).
    const tag = raw.readUInt32LE(4);
    if (tag !== 0) return this.speculations.take(cpu, raw, tag).forEach((r) => this.record(r.cpu, r.raw));
    const ep = this.byEpid.get(epid);
    this.stamp = raw.readBigUInt64LE(8);
    if (!ep) {
      this.opts.err(`dtrace: failed to process buffer on CPU ${cpu}: invalid enabled probe ID ${epid}\n`);
      return;
    }
    if (this.json) {
      this.noteExit(raw);
      return this.json.record(cpu, ep, raw.subarray(RECORD_HEADER_SIZE), { aggs: this.aggs, printf: this.symbols, setopt: (o, v) => this.setopt(ep, o, v) });
    }
    const buffered = this.opts.buffered;
    let line = '';
    if (buffered) {
      // dtrace(1) has no output file: no heading, prefix or newline.
    } else if (this.flow) {
      if (!this.headerPrinted) this.opts.out(flowHeading());
      this.headerPrinted = true;
      line = this.flow.prefix(cpu, ep, next);
    } else if (!this.quiet) {
      if (!this.headerPrinted) {
        this.opts.out(probeHeader());
        this.headerPrinted = true;
      }
      // A fleet's records say which instance they come from: INSTANCE:FUNCTION:NAME.
      line = recordPrefix(cpu, ep.probe.id, ep.probe.instance ? `${ep.probe.instance}:${ep.probe.func}` : ep.probe.func, ep.probe.name);
    }
    let plan = buffered ? null : this.plans.get(epid);
    if (plan === undefined) this.plans.set(epid, (plan = planActions(ep.records)));
    if (plan !== null) {
      line += plan(raw, RECORD_HEADER_SIZE);
    } else {
      this.ep = ep;
      this.line = line;
      walkActions(ep.records, raw.subarray(RECORD_HEADER_SIZE), this.aggs, this.text);
      line = this.line;
    }
    if (buffered) return;
    if (!this.quiet) line += '\n';
    this.opts.out(line);
  }

  /** The record being printed (text): its enabled probe and its line so far. */
  private ep!: EnabledProbe;
  private line = '';

  /** How the text output renders each action (walk.ts groups the records). */
  private readonly text: ActionRenderer = {
    printf: (r, args) => {
      const text = formatPrintf(r.format ?? '', args, this.symbols);
      if (r.action === D.DTRACEACT_SYSTEM) this.line = runSystem(text, this.line, this.opts.out, this.reopened.fd, this.opts.flush);
      else if (r.action === D.DTRACEACT_FREOPEN) this.line = this.reopened.reopen(text, this.line, enabledProbeText(this.ep));
      else this.line += this.piece(text, this.ep, r);
    },
    trace: (r, v) => {
      this.line += this.piece(formatTraceValue(v, { quiet: this.quiet, strsize: this.opts.strsize, rawbytes: this.rawbytes || r.dump }), this.ep, r);
    },
    print: (r, bytes) => { this.line += this.piece(formatPrint(r.format!, bytes, printSize(this.options)), this.ep, r); },
    printa: (r, ids) => {
      const text = this.aggs.printa(ids, r.format);
      if (!this.opts.buffered) this.line += text;
      else if (text !== '') this.bufferAggregations(ids, text, r.format !== undefined);
    },
    setopt: (_r, option, value) => this.setopt(this.ep, option, value),
    ftruncate: () => {
      // What this record printed before goes too, as libdtrace empties the file it wrote to.
      this.opts.out(this.line);
      this.line = '';
      this.reopened.truncate(this.opts.truncate);
    },
    tracemem: (r, bytes) => { this.line += this.piece(formatTracemem(bytes, this.quiet), this.ep, r); },
    // The last exit() consumed gives the status (an END clause's exit() overrides).
    exit: (_r, status) => { this.exitStatus = status; this.exitAt ??= this.stamp; },
    symbolic: (r, data) => { this.line += this.piece(formatSymbolicRecord(r, data), this.ep, r); },
  };

  /**
   * One action's output: what the record's line gains, or under -B nothing, the text going to
   * the buffered handler as a piece of its own.
   */
  private piece(text: string, ep: EnabledProbe, rec: RecordDescription): string {
    if (!this.opts.buffered) return text;
    if (text !== '') this.opts.buffered({ text, probe: ep.probe, rec, flags: 0 });
    return '';
  }

  /** -B: printa()'s or the exit's output of aggregations, a piece for them as libdtrace flushes it. */
  private bufferAggregations(ids: number[], text: string, formatted: boolean): void {
    const d = this.enabled.aggregations.find((a) => a.id === ids[0]);
    const agg = d && { name: d.name, varid: d.id, id: d.id, nrecs: d.keys.length + 1 };
    this.opts.buffered!({ text, agg, flags: (formatted ? BUFDATA_AGGFORMAT : BUFDATA_AGGVAL) | BUFDATA_AGGLAST });
  }

  /**
   * setopt(): set an option as dtrace_setopt() does while tracing; it takes effect from the next
   * record on. A failure is libdtrace's error on the enabled probe, and tracing goes on.
   */
  private setopt(ep: EnabledProbe, option: string, value: string): void {
    let v: string | null;
    try {
      v = setOptionWhileTracing(option, value);
    } catch (e) {
      if (!(e instanceof OptionError)) throw e;
      this.opts.err(setoptError(ep, option, value, e.reason));
      return;
    }
    if (v === null) return;
    const o = this.options;
    o.set(option, v);
    switch (option) {
      case 'quiet': this.quiet = optionSet(o, 'quiet'); break;
      case 'flowindent': this.flow = optionSet(o, 'flowindent') ? (this.flow ?? new FlowIndent()) : null; break;
      case 'rawbytes': this.rawbytes = optionSet(o, 'rawbytes'); break;
      case 'stackindent': {
        configureStacks(o);
        const { stackIndent } = printfSymbols();
        this.symbols.stackIndent = stackIndent;
        this.aggs.setPrintOptions({ stackIndent });
        break;
      }
      // switchrate and aggrate: the trace loop reads them from the options map.
      default: this.aggs.setPrintOptions({ ...aggSortOptions(o), aggzoom: optionSet(o, 'aggzoom') }); break;
    }
  }

  /**
   * The enabled probe a fault is reported on: the last ECB of the faulting probe, as DTrace for
   * Linux numbers it (its test suite's faults in the first of two clauses of one probe name the
   * second's EPID; the faulting clause's own EPID when it is the probe's last).
   */
  private lastOfProbe(ep: EnabledProbe | undefined): EnabledProbe | undefined {
    if (!ep) return ep;
    let last = ep;
    for (const other of this.byEpid.values()) if (other.probe.id === ep.probe.id && other.epid > last.epid) last = other;
    return last;
  }

  /** A fault record: the ERROR probe's arguments. */
  private fault(d: Buffer): void {
    const epid = d.readUInt32LE(0), action = d.readUInt32LE(4), offset = d.readUInt32LE(8);
    const code = d.readUInt32LE(12), addr = d.readBigUInt64LE(16);
    const ep = this.lastOfProbe(this.byEpid.get(epid));
    this.errors++;
    this.opts.err(
      `dtrace: ${ep ? enabledProbeText(ep) : `error on enabled probe ID ${epid} (ID 0: ?): `}` +
        `${faultMessage(code, addr)} in ${action === 0 ? 'predicate' : `action #${action}`}${offset === 0xffffffff ? '' : ` at DIF offset ${offset}`}\n`,
    );
  }

  /** Print every aggregation, as dtrace does at exit. */
  printAggregations(): void {
    if (!this.opts.buffered) return this.opts.out(this.aggs.formatAll());
    for (const { id, text } of this.aggs.formatEach()) this.bufferAggregations([id], text, false);
  }

  /**
   * The end of the output: a newline and every aggregation printa() has not printed; under
   * oformat the end of the document, with those aggregations only when asked (-O).
   */
  finish(structuredAggregations: boolean): void {
    if (this.json) return this.json.close(structuredAggregations ? this.aggs.pendingTables() : []);
    if (!this.opts.buffered) this.opts.out('\n');
    this.printAggregations();
  }

  /** dtrace ends at once (a second signal): a JSON document is still closed. */
  abandon(): void {
    this.json?.close();
  }
}

export function faultMessage(code: number, addr: bigint): string {
  const msg = D.faultMessage(code);
  if (code === D.DTRACEFLT_BADADDR || code === D.DTRACEFLT_BADALIGN || code === D.DTRACEFLT_KPRIV || code === D.DTRACEFLT_UPRIV)
    return `${msg} (0x${addr.toString(16)})`;
  if (code === D.DTRACEFLT_BADINDEX) return `${msg} (${addr})`; // the index, as DTrace for Linux says it
  return msg;
}

/** Is a -x / #pragma option on (present and not "unset")? */
function optionSet(options: Map<string, string> | undefined, name: string): boolean {
  const v = options?.get(name);
  return v !== undefined && v !== 'unset';
}

/** A fault record of a fault inside an ERROR clause (DTrace's double error). */
function isDoubleError(raw: Buffer): boolean {
  return raw.readUInt32LE(0) === FAULT_EPID && raw.readUInt32LE(4) === DBLERROR_TAG;
}

/** How dtrace(1) names the enabled probe of a fault or a library action's error. */
function enabledProbeText(ep: EnabledProbe): string {
  const p = ep.probe;
  return `error on enabled probe ID ${ep.epid} (ID ${p.id}: ${p.provider}:${p.module}:${p.func}:${p.name}): `;
}
