// dtrace(1): the command line. Reads its arguments in the passes DTrace makes (the mode, then the
// options in order, then the processes to trace, then the programs), compiles the programs,
// enables them on the device, and runs the consumer until exit(), a signal or the end of the
// traced processes; then runs END and prints the aggregations. Each step is a module of cli/:
// mode.ts (pass 1), settings.ts (pass 2), session.ts (the facilities, pass 3, pass 4), list.ts
// (-l), usdt.ts (-h/-G), trace.ts (enable, trace, finish); output.ts and signals.ts serve them all.

import { isSet } from '../options.js';
import { probeRegistry } from '../providers/registry.js';
import { setProgramDirs } from '../providers/usdt.js';
import { AddonUnavailableError } from '../device/native.js';
import { parseArgs, UsageError, type ParsedArgs } from './args.js';
import { USAGE } from './usage.js';
import { E_ERROR, E_USAGE, Fatal } from './fatal.js';
import { err, flushOutput, Output } from './output.js';
import { readMode, type Mode } from './mode.js';
import { macroTable, readSettings, type Settings } from './settings.js';
import { generateUsdt } from './usdt.js';
import { checkFacilities, compileSources, startProcesses } from './session.js';
import { listOnly, listSpecs } from './list.js';
import { ProcessSet } from './process.js';
import { Signals } from './signals.js';
import { trace } from './trace.js';

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

/** The arguments split as getopt splits them, or the exit status of a usage message or -h's help. */
function parseCommandLine(argv: string[]): ParsedArgs | number {
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
  return args;
}

async function run(argv: string[]): Promise<number> {
  // USDT providers named without a pid are looked for in the programs of the user's $PATH too.
  if (process.env.PATH) setProgramDirs(process.env.PATH.split(':'));
  const args = parseCommandLine(argv);
  if (typeof args === 'number') return args;

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
  checkFacilities(mode);
  const output = new Output(s.output, mode.buffered);
  // Read at each notice: pragmas and setopt() (through the consumer) change the options.
  const notice = (m: string) => { if (!isSet(options, 'quiet')) err(`dtrace: ${m}\n`); };

  // Pass 3: processes, before compiling so that $target is known.
  const procs = new ProcessSet(notice);
  process.on('exit', () => procs.release());
  const signals = new Signals(procs);
  await startProcesses(args, procs, options);

  const registry = probeRegistry();
  if (mode.listing && s.sources.every((x) => x.kind !== 's')) {
    listOnly(registry, listSpecs(null, s, macroTable(procs.target), args.operands), s, output);
    return 0;
  }

  // Pass 4: compile. -e with nothing to compile has nothing to do: not an error (-b 1t -e).
  if (!mode.execute && s.sources.length === 0) return 0;
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
