// dtrace(1): the command line. Reads its arguments in the passes DTrace makes (the mode, then the
// options in order, then the processes to trace, then the programs), compiles the programs,
// enables them on the device, and runs the consumer until exit(), a signal or the end of the
// traced processes; then runs END and prints the aggregations.

import { closeSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { errnoText } from './errno.js';
import { compile, defaultMacros, SourceError, type Compiled, type Source } from '../compiler/compile.js';
import { formatCompileError } from '../compiler/errors.js';
import { Consumer, type Drained } from '../consumer/consumer.js';
import { formatBufferedPiece } from '../consumer/buffered.js';
import type { BufferPolicyName } from '../consumer/bufpolicy.js';
import { writeDof } from '../dof/writer.js';
import { disassembleClauses } from '../dif/disasm.js';
import { LinuxDevice, DeviceError, type DeviceDebug } from '../device/linux/device.js';
import { probeRegistry, type ProbeRegistry } from '../providers/registry.js';
import { listProbes, type ListSpec } from '../providers/listing.js';
import { CUMULATIVE, isSet, numericOption, OptionError, optionValue, parseOptionValue } from '../options.js';
import { parseArgs, UsageError, type ParsedArgs } from './args.js';
import { ProcessError, ProcessSet } from './process.js';
import { CppError, preprocess } from './cpp.js';
import { announceExec } from '../providers/pid.js';
import { DefinitionError, writeHeader, writeObjects } from '../usdt/definitions.js';
import { announceProcess, setProgramDirs } from '../providers/usdt.js';
import { VERSION } from '../version.js';
import { DESTRUCTIVE_NOT_ALLOWED, usesDestructiveActions } from '../compiler/destructive.js';
import { API_VERSION, USAGE } from './usage.js';
import { traceTimers } from './timers.js';
import { bufsizeRefusal } from './bufsize.js';
import { missingPrivileges } from './privileges.js';
import { symbolizer } from '../sys/symbols.js';
import { AddonUnavailableError, addonUnavailable } from '../device/native.js';


/** dtrace(1)'s exit statuses. */
const E_ERROR = 1;
const E_USAGE = 2;

/** Ends the run with a message on stderr and an exit status (dtrace's fatal()). */
class Fatal extends Error {
  /** `hint`: a line for a person at a terminal, after DTrace's own words (never in piped output). */
  constructor(message: string, readonly status = E_ERROR, readonly hint?: string) {
    super(message);
  }
}

type SourceKind = Source['kind'];

/** What the options of pass 2 say. */
interface Settings {
  options: Map<string, string>;
  sources: { kind: SourceKind; text: string }[];
  cppArgs: string[];
  output?: string;
  verbose: number;
  disassemble: boolean;
  /** -L directories of D library files, in command-line order. */
  libdirs: string[];
}

/** The macro variables of this dtrace process, with $target. */
function macroTable(target: number): Map<string, bigint> {
  const m = defaultMacros();
  m.set('target', BigInt(target));
  try {
    // /proc/self/stat: pid (comm) state ppid pgrp session ...
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    m.set('pgid', BigInt(f[2]));
    m.set('sid', BigInt(f[3]));
  } catch { /* no /proc: leave them undefined */ }
  return m;
}

/** Pass 2: options in command-line order, validated as dtrace_setopt() does. */
function readSettings(args: ParsedArgs): Settings {
  const s: Settings = { options: new Map(), sources: [], cppArgs: [], verbose: 0, disassemble: false, libdirs: [] };
  const setopt = (name: string, value: string | null, shown: string) => {
    try {
      const [n, v] = parseOptionValue(name, value);
      s.options.set(n, v);
      if (CUMULATIVE.has(n)) s.cppArgs.push((n === 'define' ? '-D' : n === 'undef' ? '-U' : '-I') + v);
    } catch (e) {
      if (e instanceof OptionError) throw new Fatal(`failed to set ${shown}: ${e.reason}`);
      throw e;
    }
  };
  for (const { letter, value } of args.options) {
    switch (letter) {
      case 'b': setopt('bufsize', value!, `-b ${value}`); break;
      case 'C': s.options.set('cpp', 'set'); break;
      case 'D': setopt('define', value!, `-D ${value}`); break;
      case 'F': setopt('flowindent', null, '-F'); break;
      case 'H': setopt('cpphdrs', null, '-H'); break;
      case 'I': setopt('incdir', value!, `-I ${value}`); break;
      case 'L': setopt('libdir', value!, `-L ${value}`); s.libdirs.push(value!); break;
      case 'o': s.output = value; break;
      case 'q': setopt('quiet', null, '-q'); break;
      case 'S': s.disassemble = true; break;
      case 'U': setopt('undef', value!, `-U ${value}`); break;
      case 'v': s.verbose++; break;
      case 'w': setopt('destructive', null, '-w'); break;
      case 'X': setopt('stdc', value!, `-X ${value}`); break;
      case 'Z': s.options.set('zdefs', 'set'); break;
      case 'x': {
        const eq = value!.indexOf('=');
        const name = eq < 0 ? value! : value!.slice(0, eq);
        setopt(name, eq < 0 ? null : value!.slice(eq + 1), `-x ${name}`);
        if (name === 'libdir') s.libdirs.push(s.options.get('libdir')!); // as -L
        break;
      }
      case 'n': case 'P': case 'm': case 'f': case 'i': case 's': case 'M':
        s.sources.push({ kind: letter, text: value! });
        break;
      default:
        break; // modes (pass 1) and processes (pass 3)
    }
  }
  return s;
}

/** The most of a script dtrace reads: -s /dev/zero must fail, not fill memory. */
const MAX_SCRIPT_BYTES = 64 * 1024 * 1024;

/** A script's text: a file, or what a pipe or device (-s /dev/stdin) gives, up to MAX_SCRIPT_BYTES. */
function readScript(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(1 << 20);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > MAX_SCRIPT_BYTES) throw Object.assign(new Error('file too large'), { code: 'EFBIG' });
      chunks.push(chunk.subarray(0, n));
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Read (and with -C preprocess) the scripts; descriptions pass as they are. */
function loadSources(s: Settings): Source[] {
  return s.sources.map((src) => {
    if (src.kind !== 's') return { kind: src.kind, text: src.text, name: src.text };
    let text: string;
    try {
      text = readScript(src.text);
    } catch (e) {
      throw new Fatal(`failed to open ${src.text}: ${errnoText(e)}`);
    }
    if (isSet(s.options, 'cpp')) {
      try {
        text = preprocess(text, { path: s.options.get('cpppath'), args: s.cppArgs, headers: isSet(s.options, 'cpphdrs') });
      } catch (e) {
        if (e instanceof CppError) throw new Fatal(`failed to compile script ${src.text}: ${e.message}`);
        throw e;
      }
    }
    return { kind: 's', text, name: src.text };
  });
}

/** Macro variables and arguments in a -l description ($target, $1, ...), as the compiler expands them. */
function expandMacros(text: string, macros: Map<string, bigint>, args: string[]): string {
  return text.replace(/\$\$?([A-Za-z_]\w*|\d+)/g, (m, name: string) =>
    /^\d+$/.test(name) ? args[Number(name) - 1] ?? m : macros.get(name)?.toString() ?? m);
}

/** -l: the probes each description (or each clause of each script) names. */
function listSpecs(compiled: Compiled | null, s: Settings, macros: Map<string, bigint>, args: string[]): ListSpec[] {
  const specs: ListSpec[] = [];
  let ecb = 0;
  for (const src of s.sources) {
    if (src.kind !== 's') {
      specs.push({ kind: src.kind, text: expandMacros(src.text, macros, args) });
      continue;
    }
    // A script lists what its clauses' descriptions match, in order.
    for (const e of compiled?.program.ecbs.slice(ecb) ?? []) {
      const p = e.probe;
      specs.push({ kind: 'n', text: `${p.provider}:${p.module}:${p.function}:${p.name}` });
    }
    ecb = compiled?.program.ecbs.length ?? 0;
  }
  return specs;
}

/** dtrace(1)'s output: -o's file (opened, as DTrace opens it, once the programs have compiled),
 * else stdout; under -B it has no file and is not printed. */
class Output {
  private fd: number | null = null;
  /** What was written since the last flush: records print in one write per drain, not one each. */
  private pending = '';

  constructor(private readonly file: string | undefined, private readonly buffered: boolean) {
    flushOutput = () => this.flush();
  }

  open(): void {
    if (this.file === undefined) return;
    try {
      this.fd = openSync(this.file, 'a');
    } catch (e) {
      throw new Fatal(`failed to open output file '${this.file}': ${errnoText(e)}`);
    }
  }

  /** dtrace(1)'s own output (oprintf). */
  readonly write = (text: string): void => {
    if (this.buffered) return;
    this.pending += text;
    if (this.pending.length >= OUTPUT_BATCH) this.flush();
  };

  /** Write what is pending: after each drain, before stderr's messages and commands' output. */
  readonly flush = (): void => {
    if (this.pending === '') return;
    const text = this.pending;
    this.pending = '';
    if (this.fd === null) return void process.stdout.write(text);
    // A file that cannot take the output (a full disk) ends dtrace as a failed write ends
    // DTrace's dtrace_work(): "processing aborted", with the reason.
    try {
      writeSync(this.fd, text);
    } catch (e) {
      throw new Fatal(`processing aborted: ${errnoText(e)}`);
    }
  };

  close(): void {
    this.flush();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

/** Output is written when this much is pending, or at the end of a drain. */
const OUTPUT_BATCH = 1 << 16;
/** Writes the output pending, so that what goes to stderr keeps its place after it. */
let flushOutput = (): void => {};

/**
 * SIGINT and SIGTERM. Until tracing runs, a signal ends dtrace as it would any program, taking the
 * commands it started (still stopped) with it; tracing then sets its own handler. One listener
 * dispatches for the whole run: removing it would drop a signal still pending.
 */
class Signals {
  private handler: (signal: NodeJS.Signals) => void;
  private readonly dispatch = (signal: NodeJS.Signals) => this.handler(signal);

  constructor(procs: ProcessSet) {
    this.handler = (signal) => {
      procs.release();
      process.removeListener('SIGINT', this.dispatch);
      process.removeListener('SIGTERM', this.dispatch);
      process.kill(process.pid, signal);
    };
    process.on('SIGINT', this.dispatch);
    process.on('SIGTERM', this.dispatch);
  }

  /**
   * Compiling and loading run without a turn of the event loop, so a ^C typed meanwhile is still
   * pending: give the loop turns to deliver it to the early handler, which ends dtrace as a signal
   * ends DTrace before tracing starts; then signals go to `handler`.
   */
  async handOver(handler: (signal: NodeJS.Signals) => void): Promise<void> {
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
    this.handler = handler;
  }
}

/** What pass 1 makes of the command line: which mode dtrace runs in. */
interface Mode {
  count: (letter: string) => number;
  listing: boolean;
  execute: boolean;
  /** -B: output through the buffered output handler (consumer/buffered.ts), only when tracing. */
  buffered: boolean;
}

export async function main(argv: string[]): Promise<number> {
  try {
    const status = await run(argv);
    flushOutput(); // a listing's, or what the last drain printed
    return status;
  } catch (e) {
    if (e instanceof Fatal) {
      flushOutput();
      process.stderr.write(`dtrace: ${e.message}\n`);
      if (e.hint && process.stderr.isTTY) process.stderr.write(`dtrace: ${e.hint}\n`);
      return e.status;
    }
    // The addon is needed first by whatever touches the kernel (a -l of pid probes, say).
    if (e instanceof AddonUnavailableError) {
      process.stderr.write(`dtrace: failed to initialize dtrace: ${e.message}\n`);
      return E_ERROR;
    }
    throw e;
  }
}

const err = (text: string) => {
  flushOutput();
  process.stderr.write(text);
};

async function run(argv: string[]): Promise<number> {
  // USDT providers named without a pid are looked for in the programs of the user's $PATH too.
  if (process.env.PATH) setProgramDirs(process.env.PATH.split(':'));
  if (argv.length === 0) {
    err(USAGE);
    return E_USAGE;
  }
  let args: ParsedArgs;
  try {
    args = parseArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err(`dtrace: ${e.message}\n`);
    err(USAGE);
    return E_USAGE;
  }
  if (args.help) {
    process.stdout.write(USAGE);
    return 0;
  }

  // Pass 1: the mode.
  const mode = readMode(args);
  if (mode === 'version') return 0;

  // Pass 2: options.
  const s = readSettings(args);
  if (mode.count('G') || mode.count('h')) return generateUsdt(args, s, mode);
  const options = s.options;
  if (mode.listing) options.set('zdefs', 'set'); // -l implies -Z
  // A fleet (issue 18): agents trace, this process consumes; NATS is loaded only then.
  const fleetUrl = options.get('fleet') ?? process.env.DTRACE_FLEET;
  if (fleetUrl && (mode.execute || mode.listing)) return runFleetMode(fleetUrl, args, s, mode);
  // Tracing and listing need the kernel's tracing facilities; compiling alone (-e) does not.
  const why = mode.execute || mode.listing ? missingPrivileges() : null;
  if (why) {
    err('dtrace: failed to initialize dtrace: DTrace requires additional privileges\n');
    throw new Fatal(why);
  }
  // As dtrace_open() fails before anything is compiled: without the addon nothing can trace.
  const unavailable = mode.execute ? addonUnavailable() : null;
  if (unavailable) throw new Fatal(`failed to initialize dtrace: ${unavailable.message}`);
  const output = new Output(s.output, mode.buffered);
  // Read at each notice: pragmas and setopt() (through the consumer) change the options.
  const notice = (m: string) => { if (!isSet(options, 'quiet')) err(`dtrace: ${m}\n`); };

  // Pass 3: processes, before compiling so that $target is known.
  const procs = new ProcessSet(notice);
  process.on('exit', () => procs.release());
  const signals = new Signals(procs);
  await startProcesses(args, procs);

  const registry = probeRegistry();
  if (mode.listing && s.sources.every((x) => x.kind !== 's')) {
    listOnly(registry, listSpecs(null, s, macroTable(procs.target), args.operands), s, output);
    return 0;
  }

  // Pass 4: compile.
  const compiled = compileSources(s, args, registry, procs);
  if (compiled === null) return E_ERROR;
  if (mode.listing) {
    listOnly(registry, listSpecs(compiled, s, macroTable(procs.target), args.operands), s, output);
    return 0;
  }
  if (!mode.execute) {
    // -ev: the stability report, with each statement's probe information.
    if (s.verbose > 0) {
      output.open();
      for (const r of compiled.stabilityReports(false)) output.write(r);
    }
    return 0;
  }
  output.open();
  return trace({ s, mode, compiled, registry, procs, output, signals, notice });
}

/** dtrace as a fleet's consumer (cli/fleet.ts): no local device, no privileges needed here. */
async function runFleetMode(url: string, args: ParsedArgs, s: Settings, mode: Mode): Promise<number> {
  // $target is compiled once into the one DOF every instance gets, and an agent runs nothing from
  // the network but DOF: a process of this machine means nothing on the instances (docs/fleet.md).
  if (mode.count('c') || mode.count('p')) {
    throw new Fatal('-c and -p not valid with a fleet (-x fleet or DTRACE_FLEET): they name processes of this machine, not of the instances', E_USAGE);
  }
  const options = s.options;
  options.delete('fleet'); // the URL and its credentials stay here, out of the DOF
  const output = new Output(s.output, mode.buffered);
  const notice = (m: string) => { if (!isSet(options, 'quiet')) err(`dtrace: ${m}\n`); };
  const procs = new ProcessSet(notice);
  const signals = new Signals(procs);
  const { runFleet, FleetError } = await import('./fleet.js');
  try {
    output.open();
    return await runFleet({
      url, options, listing: mode.listing, hasScripts: s.sources.some((x) => x.kind === 's'),
      listSpecs: (compiled) => listSpecs(compiled, s, macroTable(procs.target), args.operands),
      compile: (registry) => compileSources(s, args, registry, procs),
      write: output.write, flush: output.flush, err, notice,
      onSignal: (handler) => signals.handOver(handler),
      aggregationsAtExit: mode.count('O') > 0,
    });
  } catch (e) {
    if (e instanceof FleetError) throw new Fatal(e.message);
    throw e;
  } finally {
    output.close();
  }
}

/** Pass 1: the mode the options choose, and the combinations dtrace refuses. */
function readMode(args: ParsedArgs): Mode | 'version' {
  const count = (l: string) => args.options.filter((o) => o.letter === l).length;
  if (count('A') + count('G') + count('h') + count('l') + count('V') > 1)
    throw new Fatal('only one of the [-AGhlV] options can be specified at a time', E_USAGE);
  if (count('V')) {
    process.stdout.write(`dtrace: ${API_VERSION}\n`);
    if (count('v')) process.stdout.write(`This is node-dtrace ${VERSION}\n`);
    return 'version';
  }
  if (count('a') || count('A'))
    throw new Fatal(`-${count('a') ? 'a' : 'A'}: anonymous tracing is not available on Linux: it needs the Solaris DTrace driver, which keeps enablings from boot on`);
  // -64 is the data model this dtrace always compiles for; -32 asks for one it cannot.
  if (count('3')) throw new Fatal('-32: 32-bit D programs are not supported: this dtrace compiles for the 64-bit data model of the kernel it runs on');
  const listing = count('l') > 0;
  const buffered = count('B') > 0;
  if (buffered && (count('G') || count('h') || listing))
    throw new Fatal('-B not valid in combination with [-AGl] options', E_USAGE);
  if (buffered && count('o')) throw new Fatal('-B not valid in combination with -o option', E_USAGE);
  return { count, listing, execute: count('e') === 0, buffered };
}

/** -h and -G: USDT definitions from provider declarations (src/usdt/definitions.ts). */
function generateUsdt(args: ParsedArgs, s: Settings, mode: Mode): number {
  try {
    if (mode.count('h')) writeHeader(loadSources(s), s.output);
    else writeObjects(loadSources(s), s.output, args.operands);
  } catch (e) {
    if (e instanceof DefinitionError) throw new Fatal(e.message, e.status);
    throw e;
  }
  return 0;
}

/** How often a traced process's mappings are read again while it runs. */
const MAPS_REFRESH_MS = 100;
/** ... and how often in the first second, when a short -c command may already have run. */
const MAPS_EARLY_MS = 5, MAPS_EARLY_FOR_MS = 1000;

/** Pass 3: start the -c commands and grab the -p processes, in command-line order. */
async function startProcesses(args: ParsedArgs, procs: ProcessSet): Promise<void> {
  try {
    for (const { letter, value } of args.options) {
      if (letter === 'c') {
        // Until it execs, the process is the shell that started it: tell the pid provider what
        // it will run, so that pid$target probes name the command's own functions.
        const proc = await procs.create(value!);
        announceExec(proc.pid, proc.program!);
        announceProcess(proc.pid);
      }
      else if (letter === 'p') announceProcess(procs.grab(value!).pid);
    }
  } catch (e) {
    if (e instanceof ProcessError) throw new Fatal(e.message);
    throw e;
  }
}

/** -l: the probes the descriptions (or the compiled programs) match. */
function listOnly(registry: ProbeRegistry, specs: ListSpec[], s: Settings, output: Output): void {
  output.open();
  const out = listProbes(registry, specs, s.verbose > 0);
  if ('error' in out) throw new Fatal(out.error);
  output.write(out.text);
  if (out.stderr) err(out.stderr);
}

/**
 * Pass 4: compile every program into one, or print the compile error and return null. The
 * program's options (its pragmas over -x) become the run's options.
 */
function compileSources(s: Settings, args: ParsedArgs, registry: ProbeRegistry, procs: ProcessSet): Compiled | null {
  const options = s.options;
  const sources = loadSources(s);
  if (sources.length === 0 && !isSet(options, 'zdefs')) throw new Fatal('no probes specified');
  let compiled: Compiled;
  try {
    compiled = compile(sources, {
      registry, options, macroArgs: args.operands, macros: macroTable(procs.target),
      zdefs: isSet(options, 'zdefs'),
      libraryDirs: s.libdirs,
    });
  } catch (e) {
    if (e instanceof SourceError) {
      const mode = e.source.kind === 's' ? 'script' : 'probe';
      err(formatCompileError(e.error, { mode, source: e.source.name, errtags: isSet(options, 'errtags') }) + '\n');
      if (e.error.hint && process.stderr.isTTY) err(`dtrace: ${e.error.hint}\n`);
      return null;
    }
    throw e;
  }
  for (const [k, v] of compiled.program.options) options.set(k, v);
  // -x verbose is the compiler's DIF listing flag, which -S sets.
  if (s.disassemble || isSet(options, 'verbose')) err(disassembleClauses(compiled.program.ecbs));
  // -x core: a debugging aid of libdtrace, a core dump when dtrace exits.
  if (isSet(options, 'core')) process.on('exit', () => {
    err('libdtrace DEBUG: [ forcing coredump ]\n');
    process.abort();
  });
  return compiled;
}

interface TraceRun {
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
async function trace({ s, mode, compiled, registry, procs, output, signals, notice }: TraceRun): Promise<number> {
  const options = s.options;
  const write = output.write;
  // Destructive actions without -w: refused before anything is loaded, after the match report.
  if (usesDestructiveActions(compiled.program) && !isSet(options, 'destructive')) {
    for (const m of compiled.matchMessages(compiled.program.ecbs.map((e) => registry.match(e.probe).length))) notice(m.replace(/^dtrace: /, ''));
    throw new Fatal(DESTRUCTIVE_NOT_ALLOWED, E_ERROR, '-w (or #pragma D option destructive) allows them');
  }
  const strsize = numericOption(options, 'strsize');
  const bufsize = numericOption(options, 'bufsize');
  const bufpolicy = optionValue(options, 'bufpolicy') as BufferPolicyName;
  const dof = writeDof(compiled.program);
  // The device takes the program's options from its DOF; only the verifier log's wish is its own:
  // -v, -x debug, or DTrace for Linux's -x bpflog.
  const verifierLog = s.verbose > 0 || isSet(options, 'debug') || isSet(options, 'bpflog');
  const device = new LinuxDevice(registry, { verbose: verifierLog, debug: deviceDebug() });
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

  const reports = s.verbose > 0 ? compiled.stabilityReports(true) : [];
  compiled.matchMessages(enabled.matched).forEach((m, i) => {
    notice(m.replace(/^dtrace: /, ''));
    if (reports[i]) write(reports[i]); // -v: the program's stability report
  });
  if (enabled.matched.reduce((a, b) => a + b, 0) === 0 && !isSet(options, 'zdefs')) {
    device.close();
    throw new Fatal('no probes matched');
  }
  // A buffer smaller than the largest record is refused; another size not a power-of-two
  // number of pages is raised, and dtrace says so.
  const refused = bufsizeRefusal(bufsize, enabled.probes);
  if (refused) {
    device.close();
    throw new Fatal(refused);
  }
  if (LinuxDevice.ringSize(bufsize) !== bufsize) err(`bufsize increased to ${LinuxDevice.ringSize(bufsize)}\n`);

  const consumer = new Consumer(device, enabled, {
    quiet: isSet(options, 'quiet'), strsize, out: write, flush: output.flush, err, flowindent: isSet(options, 'flowindent'), options,
    bufpolicy, bufsize,
    buffered: mode.buffered ? (piece) => process.stdout.write(formatBufferedPiece(piece)) : undefined,
  });

  // SIGINT/SIGTERM: the first ends tracing as exit() would (END runs, aggregations print); a
  // second one ends dtrace at once.
  let interrupted = 0;
  const onSignal = () => {
    interrupted++;
    if (interrupted === 1) {
      write('\n'); // after the terminal's ^C, even when quiet
      return;
    }
    consumer.abandon();
    device.close();
    procs.release();
    output.close();
    process.exit(consumer.exitStatus ?? 0);
  };
  // A signal pending since compiling still ends dtrace at once; one arriving later ends tracing.
  await signals.handOver(onSignal);

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
  // Functions whose instruction the kernel cannot probe were left out: say so once.
  const skipped = device.uninstrumented;
  if (skipped.length > 0) err(`dtrace: ${skipped.length} function${skipped.length === 1 ? '' : 's'} could not be instrumented: ${skipped.join(', ')}\n`);
  if (begun) consumer.consume(begun);
  procs.resume();

  // The trace loop. Records are drained whenever they arrive, and at least at the switch rate;
  // the aggregation snapshot (its drop reports), the status check (dynamic variable and
  // speculation drops) and the speculation cleaner each run at their own rate (timers.ts).
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
  while (consumer.exitStatus === null && interrupted === 0 && !tracedAllExited() && !consumer.filled) {
    await device.wait(procs.live > 0 ? Math.min(MAPS_REFRESH_MS, timers.msUntilNext()) : timers.msUntilNext());
    rememberTraced();
    consumer.consume();
    const due = timers.due();
    if (due.has('aggrate')) consumer.snapshotAggregations();
    if (due.has('statusrate')) consumer.status();
    if (due.has('cleanrate')) consumer.clean();
    output.flush();
  }
  clearInterval(early);
  device.stop();
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
