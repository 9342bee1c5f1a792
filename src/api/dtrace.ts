// The library API: a tracing session a Node.js program drives as dtrace(1) drives libdtrace --
// open a handle, compile a program, enable and start it, consume its records as typed objects,
// read its aggregations, stop and close. dtrace(1) takes its privilege and addon checks from here
// (access.ts); its trace loop prints text through the consumer, this one hands out objects.

import { spawnSync } from 'node:child_process';
import * as D from '../dif/constants.js';
import { compile, defaultMacros, SourceError, type Compiled } from '../compiler/compile.js';
import { formatCompileError } from '../compiler/errors.js';
import { writeDof } from '../dof/writer.js';
import { LinuxDevice, DeviceError } from '../device/linux/device.js';
import type { CpuBuffer, EnableResult, EnabledProbe, ProbeInfo, RecordDescription } from '../device/device.js';
import { DBLERROR_TAG, FAULT_EPID, RECORD_HEADER_SIZE } from '../abi/records.js';
import { probeRegistry, type ProbeRegistry } from '../providers/registry.js';
import { parseProbeSpecifier } from '../providers/listing.js';
import { OptionError, numericOption, parseOptionValue, isSet } from '../options.js';
import { Aggregations, aggSortOptions, type AggTable } from '../consumer/aggregations.js';
import { walkActions } from '../consumer/walk.js';
import { aggScalarValue, distributionRows } from '../consumer/aggprint.js';
import { formatPrintf } from '../consumer/printf.js';
import { formatPrint } from '../consumer/print.js';
import { asSigned, asUnsigned, type Value } from '../consumer/records.js';
import { configureStacks, printfSymbols, symbolicKey } from '../consumer/stacks.js';
import { Speculations } from '../consumer/speculation.js';
import { faultMessage } from '../consumer/consumer.js';
import { DESTRUCTIVE_NOT_ALLOWED, usesDestructiveActions } from '../compiler/destructive.js';
import { cannotOpen } from './access.js';
import type {
  ActionRecord, Aggregation, AggregatingFunction, CompileOptions, DValue, OpenOptions, ProbeDescription,
  ProbeRecord, TraceRecord,
} from './types.js';

/** An error as dtrace(1) reports it: `message` is its text after "dtrace: ". */
export class DTraceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DTraceError';
  }
}

/** A program that did not compile: `message` as dtrace(1) words it, `tag` the D_* error tag. */
export class DTraceCompileError extends DTraceError {
  constructor(message: string, readonly tag: string, readonly line?: number) {
    super(message);
    this.name = 'DTraceCompileError';
  }
}

/** A compiled program, ready for go(). */
export interface Program {
  /** The probe descriptions of its clauses, in order. */
  readonly clauses: string[];
}

interface CompiledProgram extends Program {
  compiled: Compiled;
  options: Map<string, string>;
}

/** How long one wait for records lasts at most (the default switchrate's order, a little faster). */
const POLL_MS = 100;

/**
 * A DTrace handle (libdtrace's dtrace_hdl_t). One program runs at a time; close() releases every
 * kernel object it made, and is safe to call more than once.
 */
export class DTrace {
  private registry: ProbeRegistry;
  private device: LinuxDevice | null = null;
  private enabled: EnableResult | null = null;
  private byEpid = new Map<number, EnabledProbe>();
  private aggs: Aggregations | null = null;
  private speculations: Speculations | null = null;
  private symbols = printfSymbols();
  private pending: CpuBuffer[] = [];
  private state: 'idle' | 'tracing' | 'stopped' | 'closed' = 'idle';
  private stopRequested = false;
  private readonly onExit = () => this.close();
  /** The status exit() gave, once an exit() record has been consumed. */
  exitStatus: number | null = null;

  private constructor(private readonly opts: OpenOptions) {
    this.registry = probeRegistry();
  }

  /**
   * Open a handle. Throws DTraceError "failed to initialize dtrace: ..." where this process may
   * not trace (root, or CAP_BPF and CAP_PERFMON) or the native addon is not built.
   */
  static open(opts: OpenOptions = {}): DTrace {
    const why = cannotOpen();
    if (why) throw new DTraceError(`failed to initialize dtrace: ${why}`);
    return new DTrace(opts);
  }

  /** The probes a description matches ("syscall::read:entry", "profile:::"), every probe without one. */
  listProbes(description?: string): ProbeDescription[] {
    if (description === undefined) return this.registry.all().map(probeDescription);
    const parsed = parseProbeSpecifier({ kind: 'n', text: description });
    if ('error' in parsed) throw new DTraceError(parsed.error);
    return parsed.flatMap((d) => ('id' in d ? [this.registry.byId(d.id)].filter((p) => p !== undefined) : this.registry.match({ ...d.spec, instance: d.instance })))
      .map(probeDescription);
  }

  /** Compile a D program (or, with kind 'probes', probe descriptions as -n takes them). */
  compile(text: string, opts: CompileOptions = {}): Program {
    const options = new Map<string, string>();
    for (const [name, value] of Object.entries(opts.options ?? {})) {
      if (value === false) continue;
      try {
        const [n, v] = parseOptionValue(name, value === true ? null : String(value));
        options.set(n, v);
      } catch (e) {
        if (e instanceof OptionError) throw new DTraceError(`failed to set -x ${name}: ${e.reason}`);
        throw e;
      }
    }
    const kind = opts.kind === 'probes' ? 'n' : 's';
    const name = opts.name ?? (kind === 's' ? 'program' : text);
    const macros = defaultMacros();
    macros.set('target', BigInt(opts.target ?? 0));
    let compiled: Compiled;
    try {
      compiled = compile([{ kind, text, name }], {
        registry: this.registry, options, macroArgs: opts.args ?? [], macros,
        zdefs: isSet(options, 'zdefs'), libraryDirs: this.opts.libraryDirs,
      });
    } catch (e) {
      if (e instanceof SourceError) {
        const mode = kind === 's' ? 'script' : 'probe';
        const message = formatCompileError(e.error, { mode, source: name }).replace(/^dtrace: /, '');
        throw new DTraceCompileError(message, e.error.tag, e.error.line);
      }
      throw e;
    }
    for (const [k, v] of compiled.program.options) options.set(k, v);
    const clauses = compiled.program.ecbs.map((e) => `${e.probe.provider}:${e.probe.module}:${e.probe.function}:${e.probe.name}`);
    const program: CompiledProgram = { clauses, compiled, options };
    return program;
  }

  /**
   * Enable the program and start tracing: BEGIN fires now, then every other probe is attached.
   * Returns how many probes each clause matched. Throws DTraceError when nothing matched, the
   * program needs -w (options: { destructive: true }), or the kernel refused it.
   */
  go(program: Program): number[] {
    if (this.state !== 'idle') throw new DTraceError(this.state === 'closed' ? 'the handle is closed' : 'a program is already running on this handle');
    const { compiled, options } = program as CompiledProgram;
    if (usesDestructiveActions(compiled.program) && !isSet(options, 'destructive'))
      throw new DTraceError(DESTRUCTIVE_NOT_ALLOWED);
    const device = new LinuxDevice(this.registry, { verbose: false });
    this.device = device;
    process.on('exit', this.onExit);
    try {
      this.enabled = device.enable(writeDof(compiled.program));
    } catch (e) {
      this.close();
      throw enablingError(e);
    }
    const matched = this.enabled.matched;
    if (matched.reduce((a, b) => a + b, 0) === 0 && !isSet(options, 'zdefs')) {
      this.close();
      throw new DTraceError('no probes matched');
    }
    for (const p of this.enabled.probes) this.byEpid.set(p.epid, p);
    configureStacks(options);
    this.symbols = printfSymbols();
    this.aggs = new Aggregations(device, this.enabled.aggregations, { ...aggSortOptions(options), strsize: numericOption(options, 'strsize') });
    this.speculations = new Speculations(device);
    try {
      device.go(() => { this.pending.push(...device.drain()); });
    } catch (e) {
      this.close();
      throw enablingError(e);
    }
    this.state = 'tracing';
    return matched;
  }

  /**
   * The records, as they arrive, until tracing ends: exit() in the program (its status in
   * exitStatus) or stop(). END's records come last. Records come once: a second loop over
   * records() gets only what the first left.
   */
  async *records(): AsyncGenerator<TraceRecord, void, undefined> {
    while (this.state === 'tracing') {
      const buffers = this.pending.splice(0);
      for (const r of this.take(buffers)) yield r;
      if (this.exitStatus !== null || this.stopRequested) break;
      await this.device!.wait(POLL_MS);
      if (this.state !== 'tracing') break;
      this.pending.push(...this.device!.drain());
    }
    if (this.state === 'tracing') this.end();
    for (const r of this.take(this.pending.splice(0))) yield r;
  }

  /** Every aggregation as it stands now, in order of declaration, with its entries sorted as dtrace(1) prints them. */
  aggregations(): Aggregation[] {
    if (!this.aggs || this.state === 'closed') return [];
    return this.aggs.snapshot().map(aggregation);
  }

  /**
   * Stop tracing: detach every probe and fire END. A records() loop still running ends after
   * END's records; without one, they wait for the next records().
   */
  stop(): void {
    if (this.state !== 'tracing') return;
    this.stopRequested = true;
    this.end();
  }

  /** Release every kernel object: programs, maps, perf events, uprobes. */
  close(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.device?.close();
    process.removeListener('exit', this.onExit);
  }

  private end(): void {
    const device = this.device!;
    device.stop();
    this.pending.push(...device.drain());
    this.state = 'stopped';
  }

  /** Typed records from drained buffers (speculations held until committed). */
  private *take(buffers: CpuBuffer[]): Generator<TraceRecord> {
    for (const b of buffers) {
      if (b.lost > 0) yield { type: 'drop', cpu: b.cpu, count: b.lost };
      for (const raw of b.records) yield* this.record(b.cpu, raw);
    }
  }

  private *record(cpu: number, raw: Buffer): Generator<TraceRecord> {
    const epid = raw.readUInt32LE(0);
    if (epid === FAULT_EPID) {
      if (raw.readUInt32LE(4) === DBLERROR_TAG) return; // a fault in an ERROR clause
      yield this.fault(raw.subarray(RECORD_HEADER_SIZE));
      return;
    }
    const tag = raw.readUInt32LE(4);
    if (tag !== 0) {
      for (const r of this.speculations!.take(cpu, raw, tag)) yield* this.record(r.cpu, r.raw);
      return;
    }
    const ep = this.byEpid.get(epid);
    if (!ep) return;
    const record: ProbeRecord = {
      type: 'probe', probe: probeDescription(ep.probe), cpu, timestamp: raw.readBigUInt64LE(8),
      actions: this.actions(ep.records, raw.subarray(RECORD_HEADER_SIZE)),
    };
    yield record;
  }

  private fault(d: Buffer): TraceRecord {
    const epid = d.readUInt32LE(0), action = d.readUInt32LE(4), offset = d.readUInt32LE(8);
    const code = d.readUInt32LE(12), addr = d.readBigUInt64LE(16);
    const ep = this.byEpid.get(epid);
    const where = `${action === 0 ? 'predicate' : `action #${action}`}${offset === 0xffffffff ? '' : ` at DIF offset ${offset}`}`;
    return { type: 'fault', probe: ep ? probeDescription(ep.probe) : null, message: `${faultMessage(code, addr)} in ${where}` };
  }

  /** What each action recorded: the consumer's record walk (consumer/walk.ts), with values in place of text. */
  private actions(recs: RecordDescription[], data: Buffer): ActionRecord[] {
    const out: ActionRecord[] = [];
    walkActions(recs, data, this.aggs!, {
      printf: (r, args) => {
        const text = formatPrintf(r.format ?? '', args, this.symbols);
        if (r.action === D.DTRACEACT_SYSTEM) {
          const run = spawnSync('/bin/sh', ['-c', text], { stdio: ['inherit', 'pipe', 'inherit'] });
          out.push({ action: 'system', command: text, output: run.stdout?.toString('utf8') ?? '' });
        } else if (r.action === D.DTRACEACT_PRINTF) {
          out.push({ action: 'printf', format: r.format ?? '', args: args.map(dvalue), text });
        }
      },
      trace: (_r, v) => { out.push({ action: 'trace', value: dvalue(v) }); },
      print: (r, bytes) => { out.push({ action: 'print', text: formatPrint(r.format!, bytes) }); },
      printa: (r, ids) => { out.push({ action: 'printa', format: r.format, aggregations: this.aggs!.tables(ids).map(aggregation) }); },
      setopt: (_r, option, value) => { out.push({ action: 'setopt', option, value }); },
      tracemem: (_r, bytes) => { out.push({ action: 'tracemem', bytes: Buffer.from(bytes) }); },
      exit: (_r, status) => {
        if (this.exitStatus === null) this.exitStatus = status;
        out.push({ action: 'exit', status });
      },
      symbolic: (r, data) => { out.push(symbolic(r.action, symbolicKey(r, data))); },
    });
    return out;
  }
}

function probeDescription(p: ProbeInfo): ProbeDescription {
  return { id: p.id, provider: p.provider, module: p.module, function: p.func, name: p.name };
}

/** A decoded value as JavaScript holds it. */
function dvalue(v: Value): DValue {
  switch (v.kind) {
    case 'int': return v.signed ? asSigned(v) : asUnsigned(v);
    case 'string': return v.value;
    case 'bytes': return v.frames ?? (v.shown !== undefined ? v.shown.trim() : v.value);
  }
}

const STACK_ACTIONS = new Set([D.DTRACEACT_STACK, D.DTRACEACT_USTACK, D.DTRACEACT_JSTACK]);

/** A stack or symbol action, named as D names it (dif/constants.ts). */
function symbolic(action: number, v: Value): ActionRecord {
  const name = D.DTRACEACT_NAMES.get(action);
  if (STACK_ACTIONS.has(action)) return { action: name as 'stack' | 'ustack' | 'jstack', frames: v.kind === 'bytes' ? v.frames ?? [] : [] };
  const text = (v.kind === 'string' ? v.value : v.shown ?? '').trim();
  return { action: (name ?? 'sym') as 'sym' | 'mod' | 'usym' | 'umod' | 'uaddr', text };
}

function aggregation(t: AggTable): Aggregation {
  return {
    name: t.name,
    function: t.desc.action as AggregatingFunction,
    entries: t.entries.map((e) => {
      const keys = e.keys.map(dvalue);
      const rows = distributionRows(t.desc, e.data);
      return rows ? { keys, buckets: rows.map((r) => ({ value: r.value, count: r.count })) } : { keys, value: aggScalarValue(t.desc, e.data) };
    }),
  };
}

/** The kernel's refusal, as dtrace(1) reports it. */
function enablingError(e: unknown): DTraceError {
  if (e instanceof DeviceError) return new DTraceError(e.message.startsWith('failed to enable ') ? e.message : `could not enable tracing: ${e.message}`);
  const ne = e as Error & { code?: string };
  if (ne.code || /^[a-z_]+: /.test(ne.message ?? '')) return new DTraceError(`could not enable tracing: ${ne.message}`);
  return e as DTraceError;
}

