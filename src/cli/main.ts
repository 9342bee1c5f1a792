// dtrace(1): the command line. Parses options as DTrace does (in order, repeatable, combinable),
// compiles the programs, enables them on the device, runs the consumer until exit(), a signal or
// the end of the traced command, then prints the aggregations.

import { Command, CommanderError, Option } from 'commander';
import { createWriteStream, readFileSync, type WriteStream } from 'node:fs';
import { compile, SourceError, type Source } from '../compiler/compile.js';
import { formatCompileError } from '../compiler/errors.js';
import { Consumer } from '../consumer/consumer.js';
import { writeDof } from '../dof/writer.js';
import { disassembleProgram } from '../dif/disasm.js';
import { LinuxDevice, DeviceError } from '../device/linux/device.js';
import { probeRegistry } from '../providers/registry.js';
import { listProbes } from '../providers/listing.js';
import { parseOptionValue, OptionError } from './options.js';
import { VERSION } from '../version.js';

const USAGE = `Usage: dtrace [-aACeFGhHlqSvVwZ] [-b bufsz] [-c cmd] [-D name[=def]]
	[-I path] [-L path] [-o output] [-p pid] [-s script] [-U name]
	[-x opt[=val]] [-X a|c|s|t]

	[-P provider [[ predicate ] action ]]
	[-m [ provider: ] module [[ predicate ] action ]]
	[-f [[ provider: ] module: ] func [[ predicate ] action ]]
	[-n [[[ provider: ] module: ] func: ] name [[ predicate ] action ]]
	[-i probe-id [[ predicate ] action ]] [ args ... ]

	predicate -> '/' D-expression '/'
	   action -> '{' D-statements '}'

	-a  take over the anonymous tracing state (not on Linux)
	-A  emit configuration for anonymous tracing (not on Linux)
	-b  trace buffer size per CPU
	-c  start a command, trace it, and stop when it exits
	-C  pass script files through the C preprocessor
	-D  define a preprocessor macro
	-e  compile the program, then exit without enabling it
	-f  enable or list probes by function name
	-F  indent output by function entry and return
	-G  write an ELF object holding the program
	-h  write a C header for static probe definitions
	-H  show files the preprocessor includes
	-i  enable or list probes by probe id
	-I  add a preprocessor include directory
	-l  list matching probes instead of enabling them
	-L  add a D library directory
	-m  enable or list probes by module name
	-n  enable or list probes by probe name
	-o  write trace output to a file
	-p  trace a running process by id
	-P  enable or list probes by provider name
	-q  quiet: print only what the program traces
	-s  compile and enable a D script file
	-S  show the DIF the compiler generates
	-U  undefine a preprocessor macro
	-v  verbose: stability attributes and argument types
	-V  print the DTrace API version
	-w  allow destructive actions
	-x  set a compiler or tracing option
	-X  preprocessor ISO C mode (a, c, s or t)
	-Z  allow descriptions that match no probes
`;

type Kind = 'n' | 'P' | 'm' | 'f' | 'i' | 's';

interface Parsed {
  sources: { kind: Kind; text: string }[];
  xopts: [string, string][];
  flags: Set<string>;
  output?: string;
  args: string[];
}

function parseArgs(argv: string[]): Parsed {
  const parsed: Parsed = { sources: [], xopts: [], flags: new Set(), args: [] };
  const program = new Command('dtrace');
  program.exitOverride().helpOption(false).allowExcessArguments(true).argument('[args...]');
  program.configureOutput({ writeErr: () => {}, writeOut: () => {} });
  for (const k of ['n', 'P', 'm', 'f', 'i', 's'] as const) {
    program.addOption(new Option(`-${k} <text>`).argParser((v: string) => { parsed.sources.push({ kind: k, text: v }); return v; }));
  }
  program.addOption(new Option('-x <opt>').argParser((v: string) => {
    const eq = v.indexOf('=');
    parsed.xopts.push(eq < 0 ? [v, ''] : [v.slice(0, eq), v.slice(eq + 1)]);
    return v;
  }));
  program.addOption(new Option('-b <size>').argParser((v: string) => { parsed.xopts.push(['bufsize', v]); return v; }));
  program.addOption(new Option('-o <file>').argParser((v: string) => { parsed.output = v; return v; }));
  for (const k of ['c', 'p', 'D', 'U', 'I', 'L', 'X']) {
    program.addOption(new Option(`-${k} <value>`).argParser((v: string) => { parsed.flags.add(k); return v; }));
  }
  for (const k of ['a', 'A', 'C', 'e', 'F', 'G', 'h', 'H', 'l', 'q', 'S', 'v', 'V', 'w', 'Z']) {
    program.addOption(new Option(`-${k}`).argParser(() => { parsed.flags.add(k); return true; }));
    program.on(`option:${k}`, () => parsed.flags.add(k));
  }
  program.action((args: string[]) => { parsed.args = args; });
  program.parse(argv, { from: 'user' });
  return parsed;
}

export async function main(argv: string[]): Promise<number> {
  const err = (s: string) => process.stderr.write(s);
  let parsed: Parsed;
  try {
    parsed = parseArgs(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      const m = /unknown option '-?-?(.*?)'/.exec(e.message);
      if (m) err(`dtrace: illegal option -- ${m[1].replace(/^-/, '')}\n`);
      else if (/argument missing/.test(e.message)) {
        const o = /'-(\w)/.exec(e.message);
        err(`dtrace: option requires an argument -- ${o ? o[1] : '?'}\n`);
      }
      err(USAGE);
      return 2;
    }
    throw e;
  }
  const { flags } = parsed;
  if (flags.has('V')) {
    process.stdout.write(`dtrace: Sun D 1.13 (node-dtrace ${VERSION})\n`);
    return 0;
  }
  if (argv.length === 0) {
    err(USAGE);
    return 2;
  }

  // Options: -x and their short forms.
  const options = new Map<string, string>();
  if (flags.has('q')) options.set('quiet', 'set');
  if (flags.has('w')) options.set('destructive', 'set');
  if (flags.has('Z')) options.set('zdefs', 'set');
  if (flags.has('F')) options.set('flowindent', 'set');
  try {
    for (const [name, value] of parsed.xopts) options.set(...parseOptionValue(name, value));
  } catch (e) {
    if (e instanceof OptionError) {
      err(`dtrace: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const errtags = options.has('errtags');

  const registry = probeRegistry();

  if (flags.has('l')) {
    const specs = parsed.sources.filter((s) => s.kind !== 's').map((s) => ({ kind: s.kind, text: s.text }));
    const out = listProbes(registry, specs, flags.has('v'));
    if ('error' in out) {
      err(`dtrace: ${out.error}\n`);
      return 1;
    }
    process.stdout.write(out.text);
    if (out.stderr) err(out.stderr);
    return 0;
  }

  if (parsed.sources.length === 0) {
    err('dtrace: no probe descriptions or D programs specified\n');
    err(USAGE);
    return 2;
  }

  // Read scripts.
  const sources: Source[] = [];
  for (const s of parsed.sources) {
    if (s.kind === 's') {
      let text: string;
      try {
        text = readFileSync(s.text, 'utf8');
      } catch (e) {
        err(`dtrace: failed to open ${s.text}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'No such file or directory' : (e as Error).message}\n`);
        return 1;
      }
      sources.push({ kind: 's', text, name: s.text });
    } else sources.push({ kind: s.kind, text: s.text, name: s.text });
  }

  // Compile.
  let compiled;
  try {
    compiled = compile(sources, { registry, options, macroArgs: parsed.args, zdefs: flags.has('Z') });
  } catch (e) {
    if (e instanceof SourceError) {
      const mode = e.source.kind === 's' ? 'script' : 'probe';
      err(formatCompileError(e.error, { mode, source: e.source.name, errtags }) + '\n');
      return 1;
    }
    throw e;
  }
  for (const [k, v] of compiled.program.options) options.set(k, v);
  if (flags.has('S')) err(disassembleProgram(compiled.program));
  const quiet = options.has('quiet');

  if (flags.has('e')) return 0;

  const dof = writeDof(compiled.program);
  const device = new LinuxDevice(registry, {
    strsize: Number(options.get('strsize') ?? 256),
    bufsize: Number(options.get('bufsize') ?? 4 * 1024 * 1024),
    aggsize: Math.max(1024, Math.floor(Number(options.get('aggsize') ?? 4 * 1024 * 1024) / 64)),
    verbose: flags.has('v') || options.has('debug'),
  });
  const cleanup = () => device.close();
  process.on('exit', cleanup);

  let enabled;
  try {
    enabled = device.enable(dof);
  } catch (e) {
    device.close();
    if (e instanceof DeviceError) {
      err(`dtrace: could not enable tracing: ${e.message}\n`);
      if (e.log && (flags.has('v') || options.has('debug'))) err(e.log + '\n');
      return 1;
    }
    const ne = e as Error & { code?: string };
    if (ne.code) {
      err(`dtrace: could not enable tracing: ${ne.message}\n`);
      return 1;
    }
    throw e;
  }

  if (!quiet) {
    for (const m of compiled.matchMessages(enabled.matched)) err(m + '\n');
  }

  let out: WriteStream | null = null;
  const write = parsed.output
    ? ((out = createWriteStream(parsed.output, { flags: 'a' })), (s: string) => { out!.write(s); })
    : (s: string) => { process.stdout.write(s); };

  const consumer = new Consumer(device, enabled, { quiet, strsize: Number(options.get('strsize') ?? 256), out: write, err });

  let interrupted = 0;
  const onSignal = () => {
    if (interrupted === 0) write('\n'); // after the terminal's ^C
    interrupted++;
    if (interrupted > 1) {
      device.close();
      process.exit(1);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  device.go();
  const switchMs = 100;
  while (consumer.exitStatus === null && interrupted === 0) {
    await device.wait(switchMs);
    consumer.consume();
  }
  device.stop();
  consumer.consume();
  // dtrace ends its output with a newline, then the aggregations, even when quiet.
  write('\n');
  consumer.printAggregations();
  device.close();
  if (out) await new Promise<void>((r) => out!.end(r));
  return consumer.exitStatus ?? 0;
}
