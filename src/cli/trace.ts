// Tracing, step by step: refuse destructive actions without -w, enable the program on the device,
// start it (BEGIN), the trace loop until exit(), a signal or the end of the traced processes,
// then END and the aggregations.

import type { Compiled } from '../compiler/compile.js';
import { DESTRUCTIVE_NOT_ALLOWED, usesDestructiveActions } from '../compiler/destructive.js';
import { Consumer, type Drained } from '../consumer/consumer.js';
import { formatBufferedPiece } from '../consumer/buffered.js';
import type { BufferPolicyName } from '../consumer/bufpolicy.js';
import { writeDof } from '../dof/writer.js';
import { LinuxDevice, DeviceError, type BpfLog, type DeviceDebug, type ProgramListing } from '../device/linux/device.js';
import { listing } from '../device/linux/bpf-disasm.js';
import type { EnableResult } from '../device/device.js';
import type { ProbeRegistry } from '../providers/registry.js';
import { isSet, numericOption, optionValue } from '../options.js';
import { symbolizer } from '../sys/symbols.js';
import { E_ERROR, Fatal } from './fatal.js';
import type { Mode } from './mode.js';
import { err, type Output } from './output.js';
import type { ProcessSet } from './process.js';
import type { Settings } from './settings.js';
import type { Signals } from './signals.js';
import { traceTimers } from './timers.js';
import { bufsizeRefusal } from './bufsize.js';

/** How often a traced process's mappings are read again while it runs. */
const MAPS_REFRESH_MS = 100;
/** ... and how often in the first second, when a short -c command may already have run. */
const MAPS_EARLY_MS = 5, MAPS_EARLY_FOR_MS = 1000;
// -x bpflogsize: DTrace for Linux's default (16 MiB - 1), and the most bpf(2) takes.
const BPFLOG_DEFAULT_SIZE = 16 * 1024 * 1024 - 1, BPFLOG_MAX_SIZE = 2 ** 30 - 1;

export interface TraceRun {
  s: Settings;
  mode: Mode;
  compiled: Compiled;
  registry: ProbeRegistry;
  procs: ProcessSet;
  output: Output;
  signals: Signals;
  notice: (m: string) => void;
}

/**
 * Enable the program, run BEGIN, trace until exit(), a signal or the end of the traced processes,
 * then END and the aggregations. Returns dtrace's exit status.
 */
export async function trace({ s, mode, compiled, registry, procs, output, signals, notice }: TraceRun): Promise<number> {
  const options = s.options;
  refuseDestructive(compiled, registry, options, notice);
  const strsize = numericOption(options, 'strsize');
  const bufsize = numericOption(options, 'bufsize');
  const bufpolicy = optionValue(options, 'bufpolicy') as BufferPolicyName;
  const { device, enabled, cannotEnable } = enable(compiled, registry, s, notice, output.write);
  checkBufsize(device, enabled, bufsize, numericOption(options, 'aggsize'), numericOption(options, 'specsize'));

  const consumer = new Consumer(device, enabled, {
    quiet: isSet(options, 'quiet'), strsize, out: output.write, flush: output.flush, truncate: output.truncate, err, flowindent: isSet(options, 'flowindent'), options,
    bufpolicy, bufsize,
    buffered: mode.buffered ? (piece) => process.stdout.write(formatBufferedPiece(piece)) : undefined,
  });
  const interrupted = await takeSignals(signals, consumer, device, procs, output);
  // A switch rate the program or the command line set is kept to, as DTrace keeps to its own:
  // the buffers are read only at each switch, so even BEGIN's exit() is seen at the first one.
  // Unset, records are read as soon as they arrive (and at least every tenth of a second).
  const paced = isSet(options, 'switchrate');
  const begun = start(device, consumer, options, bufsize, notice, cannotEnable, paced);
  procs.resume();
  const pending = await traceLoop(device, consumer, procs, output, options, interrupted, paced, begun);
  return finish(device, consumer, procs, output, mode, pending);
}

/** Destructive actions without -w: refused before anything is loaded, after the match report. */
function refuseDestructive(compiled: Compiled, registry: ProbeRegistry, options: Map<string, string>, notice: (m: string) => void): void {
  if (usesDestructiveActions(compiled.program) && !isSet(options, 'destructive')) {
    for (const m of compiled.matchMessages(compiled.program.ecbs.map((e) => registry.match(e.probe).length))) notice(m.replace(/^dtrace: /, ''));
    throw new Fatal(DESTRUCTIVE_NOT_ALLOWED, E_ERROR, '-w (or #pragma D option destructive) allows them');
  }
}

interface Enabling {
  device: LinuxDevice;
  enabled: EnableResult;
  /** Closes the device and makes a failure to load or attach dtrace's message. */
  cannotEnable: (e: unknown) => Fatal;
}

/**
 * The program's DOF enabled on a new device: the match report (with -v's stability report), and
 * "no probes matched" unless -Z.
 */
function enable(compiled: Compiled, registry: ProbeRegistry, s: Settings, notice: (m: string) => void, write: (text: string) => void): Enabling {
  const options = s.options;
  const dof = writeDof(compiled.program);
  // The device takes the program's options from its DOF; only the verifier log's wish is its own:
  // -v, -x debug, or DTrace for Linux's -x bpflog.
  const verifierLog = s.verbose > 0 || isSet(options, 'debug') || isSet(options, 'bpflog');
  // -S lists the DIF as it compiles, and here the BPF each probe runs, as DTrace for Linux does;
  // -x debug says what is loaded.
  const list = s.disassemble || isSet(options, 'verbose'), debug = isSet(options, 'debug');
  const device = new LinuxDevice(registry, {
    verbose: verifierLog,
    debug: deviceDebug(),
    ...(isSet(options, 'bpflog') ? { bpflog: bpfLog(options) } : {}),
    ...(list || debug ? {
      listing: (p: ProgramListing) => {
        if (debug) debugMessage(`loading the BPF program of ${p.probe} (${p.insns.length / 8} instructions, ${p.clauses.length} clause${p.clauses.length === 1 ? '' : 's'})`);
        if (list) err(programListing(p));
      },
    } : {}),
  });
  process.on('exit', () => device.close());
  const cannotEnable = (e: unknown): Fatal => {
    device.close();
    return enablingError(e, verifierLog);
  };
  let enabled;
  try {
    enabled = device.enable(dof);
  } catch (e) {
    throw cannotEnable(e);
  }

  if (debug) debugMessage(`enabled ${enabled.probes.length} probe${enabled.probes.length === 1 ? '' : 's'} and ${enabled.aggregations.length} aggregation${enabled.aggregations.length === 1 ? '' : 's'}`);
  const reports = s.verbose > 0 ? compiled.stabilityReports(true) : [];
  compiled.matchMessages(enabled.matched).forEach((m, i) => {
    notice(m.replace(/^dtrace: /, ''));
    if (reports[i]) write(reports[i]); // -v: the program's stability report
  });
  if (enabled.matched.reduce((a, b) => a + b, 0) === 0 && !isSet(options, 'zdefs')) {
    device.close();
    throw new Fatal('no probes matched');
  }
  return { device, enabled, cannotEnable };
}

/**
 * A buffer smaller than the largest record, or an aggsize or specsize too small, is refused (cli/bufsize.ts);
 * another size not a power-of-two number of pages is raised, and dtrace says so.
 */
function checkBufsize(device: LinuxDevice, enabled: EnableResult, bufsize: number, aggsize: number, specsize: number): void {
  const refused = bufsizeRefusal(bufsize, enabled.probes, aggsize, enabled.aggregations, device.speculates ? specsize : undefined);
  if (refused) {
    device.close();
    throw new Fatal(refused);
  }
  // A size the device lowered is reported as lowered (start()), not as raised to a ring's.
  if (device.bufsizeLowered === undefined && LinuxDevice.ringSize(bufsize) !== bufsize) err(`bufsize increased to ${LinuxDevice.ringSize(bufsize)}\n`);
}

/**
 * SIGINT/SIGTERM while tracing: the first ends tracing as exit() would (END runs, aggregations
 * print); a second one ends dtrace at once. A signal pending since compiling still ends dtrace
 * at once. Returns whether tracing was interrupted.
 */
async function takeSignals(signals: Signals, consumer: Consumer, device: LinuxDevice, procs: ProcessSet, output: Output): Promise<() => boolean> {
  let interrupted = 0;
  const onSignal = () => {
    interrupted++;
    if (interrupted === 1) {
      output.write('\n'); // after the terminal's ^C, even when quiet
      return;
    }
    consumer.abandon();
    device.close();
    procs.release();
    output.close();
    process.exit(consumer.exitStatus ?? 0);
  };
  await signals.handOver(onSignal);
  return () => interrupted > 0;
}

/**
 * Attach the probes and run BEGIN, then say what the device left out or changed. BEGIN's records
 * are consumed at once, or returned to wait for the first switch when `paced`.
 */
function start(device: LinuxDevice, consumer: Consumer, options: Map<string, string>, bufsize: number, notice: (m: string) => void, cannotEnable: (e: unknown) => Fatal, paced: boolean): Drained | undefined {
  let begun: Drained | undefined;
  try {
    // BEGIN's records are taken while only BEGIN has fired, so they print first whichever CPU
    // the others fire on; they print once every probe is active.
    device.go(() => { begun = consumer.drain(); });
  } catch (e) {
    throw cannotEnable(e);
  }
  if (isSet(options, 'destructive')) notice('allowing destructive actions');
  for (const name of device.vanished) err(`dtrace: ${name}: skipped: its tracepoint was removed after the probe was matched\n`);
  // As dtrace(1) reports a buffer its kernel had to make smaller (bufresize=auto), even when quiet.
  if (device.bufsizeLowered !== undefined && device.bufsizeLowered < bufsize) err(`dtrace: buffer size lowered to ${sizeText(device.bufsizeLowered)}\n`);
  if (device.aggsizeLowered !== undefined) err(`dtrace: aggregation size lowered to ${sizeText(device.aggsizeLowered)}\n`);
  // Functions whose instruction the kernel cannot probe were left out: say so once.
  const skipped = device.uninstrumented;
  if (skipped.length > 0) err(`dtrace: ${skipped.length} function${skipped.length === 1 ? '' : 's'} could not be instrumented: ${skipped.join(', ')}\n`);
  if (begun && !paced) consumer.consume(begun);
  return paced ? begun : undefined;
}

/**
 * The trace loop, until exit(), a signal, the end of the traced processes or a full buffer
 * (bufpolicy=fill). Records are drained whenever they arrive, and at least at the switch rate;
 * the aggregation snapshot (its drop reports), the status check (dynamic variable and
 * speculation drops) and the speculation cleaner each run at their own rate (timers.ts).
 */
async function traceLoop(device: LinuxDevice, consumer: Consumer, procs: ProcessSet, output: Output, options: Map<string, string>, interrupted: () => boolean, paced: boolean, begun: Drained | undefined): Promise<Drained | undefined> {
  let pending = begun;
  const timers = traceTimers(options);
  const tracedAllExited = () => procs.procs.length > 0 && procs.live === 0;
  // A -c or -p process's mappings are read again while it runs, so that its user addresses are
  // still named once it has exited (its /proc/PID/maps is empty from then on).
  const rememberTraced = () => {
    for (const p of procs.procs) if (!p.exited) symbolizer().user.refresh(p.pid);
  };
  rememberTraced();
  // A short -c command may exec, run and exit between two turns of the loop: read often at first.
  const early = setInterval(rememberTraced, MAPS_EARLY_MS);
  setTimeout(() => clearInterval(early), MAPS_EARLY_FOR_MS).unref();
  // dtrace(1) learns of exit() from its status check (dtrace_status): with -x statusrate given, as
  // there, tracing ends at the first check after exit() (END sees the delay); otherwise at once.
  const atStatus = isSet(options, 'statusrate');
  let exited = consumer.exitStatus !== null;
  while (!exited && !interrupted() && !tracedAllExited() && !consumer.filled) {
    const ms = procs.live > 0 ? Math.min(MAPS_REFRESH_MS, timers.msUntilNext()) : timers.msUntilNext();
    if (paced) await new Promise((r) => setTimeout(r, ms));
    else await device.wait(ms);
    rememberTraced();
    const due = timers.due();
    if (!paced || due.has('switchrate')) {
      if (pending) consumer.consume(pending);
      pending = undefined;
      consumer.consume();
    }
    procs.announce(consumer.exitAt);
    if (due.has('aggrate')) consumer.snapshotAggregations();
    if (due.has('statusrate')) consumer.status();
    if (due.has('cleanrate')) consumer.clean();
    output.flush();
    if (consumer.exitStatus !== null && (!atStatus || due.has('statusrate'))) exited = true;
  }
  clearInterval(early);
  return pending;
}

/** Stop tracing, print what remains, END's records and the aggregations; dtrace's exit status. */
function finish(device: LinuxDevice, consumer: Consumer, procs: ProcessSet, output: Output, mode: Mode, pending: Drained | undefined): number {
  device.stop();
  if (pending) consumer.consume(pending);
  consumer.consume();
  consumer.flush(); // bufpolicy=ring: the buffers' contents are printed only now
  // Once stopped, DTrace checks the status one last time and snapshots the aggregations.
  consumer.status();
  consumer.snapshotAggregations();
  // dtrace ends its output with a newline, then the aggregations, even when quiet; under
  // -x oformat the document ends, with the aggregations only under -O.
  consumer.finish(mode.count('O') > 0);
  device.close();
  procs.release();
  output.close();
  return consumer.exitStatus ?? 0;
}

/** -x debug: a line as DTrace's debug messages are laid out -- who, DEBUG, a time stamp (µs), the text. */
function debugMessage(text: string): void {
  err(`dtrace DEBUG ${process.hrtime.bigint() / 1000n}: ${text}\n`);
}

/** A loaded program's listing (-S): titled by its clauses when it runs any, else by its probe. */
function programListing(p: ProgramListing): string {
  const clause = (c: ProgramListing['clauses'][number]) => `${c.description}, <dt_clause_${c.index}>`;
  const title = p.clauses.length === 1 ? `clause ${clause(p.clauses[0])}`
    : p.clauses.length > 1 ? `clauses ${p.clauses.map(clause).join('; ')} (probe ${p.probe})`
    : `the program of ${p.probe}`;
  return `\nDisassembly of ${title}:\nINS  OFF    OPCODE                  INSTRUCTION\n${listing(p.insns).join('\n')}\n`;
}

/** -x bpflog: each program's verifier log on stderr, its lines marked "BPF: " as DTrace for Linux does. */
function bpfLog(options: Map<string, string>): BpfLog {
  const size = options.get('bpflogsize');
  return {
    size: size === undefined ? BPFLOG_DEFAULT_SIZE : Math.min(Number(size), BPFLOG_MAX_SIZE),
    log: (text) => { for (const line of text.split('\n')) if (line !== '') err(`BPF: ${line}\n`); },
    notice: (text) => err(text + '\n'),
  };
}

/** The device's developer switches, from the environment: dtrace(1) is the one reader of it. */
function deviceDebug(): DeviceDebug {
  const env = process.env;
  return {
    printPrograms: !!env.DTRACE_DEBUG_BPF,
    noOptimize: !!env.DTRACE_BPF_NOOPT,
    stats: !!env.DTRACE_BPF_STATS,
    rejectClause: Number(env.DTRACE_TEST_REJECT_CLAUSE ?? 0),
    ...(env.DTRACE_TEST_VANISH ? { vanish: env.DTRACE_TEST_VANISH } : {}),
  };
}

/** A failure to load or attach: "could not enable tracing", with the verifier's log if asked. */
function enablingError(e: unknown, verifierLog: boolean): Fatal {
  if (e instanceof DeviceError) {
    if (e.log && verifierLog) err(e.log + '\n');
    // A probe the kernel refused fails the whole enabling, as in DTrace ("failed to enable ...").
    return new Fatal(e.message.startsWith('failed to enable ') ? e.message : `could not enable tracing: ${e.message}`);
  }
  const ne = e as Error & { code?: string };
  if (ne.code || /^[a-z_]+: /.test(ne.message ?? '')) return new Fatal(`could not enable tracing: ${ne.message}`);
  throw e;
}

/** A size as dtrace(1) reports a lowered one: in the largest unit that divides it, else in bytes. */
function sizeText(n: number): string {
  let j = 0;
  let mul = 10;
  for (; 2 ** mul <= n; j++, mul += 10);
  return n % 2 ** (mul - 10) === 0 ? `${n / 2 ** (mul - 10)}${' kmgtpe'[j]}` : `${n} bytes`;
}
