// The steps of a run between the command line and tracing: whether this machine can trace, the
// processes to trace (pass 3) and the compiled program (pass 4).

import { compile, SourceError, type Compiled } from '../compiler/compile.js';
import { formatCompileError } from '../compiler/errors.js';
import { disassembleClauses } from '../dif/disasm.js';
import { addonUnavailable } from '../device/native.js';
import { isSet, optionValue } from '../options.js';
import { announceExec } from '../providers/pid.js';
import type { ProbeRegistry } from '../providers/registry.js';
import { announceProcess } from '../providers/usdt.js';
import type { ParsedArgs } from './args.js';
import { Fatal } from './fatal.js';
import type { Mode } from './mode.js';
import { err } from './output.js';
import { missingPrivileges } from './privileges.js';
import { ProcessError, type ProcessSet } from './process.js';
import { loadSources, macroTable, type Settings } from './settings.js';

/**
 * Tracing and listing need the kernel's tracing facilities (privileges); tracing needs the
 * addon too, as dtrace_open() fails before anything is compiled. Compiling alone (-e) needs neither.
 */
export function checkFacilities(mode: Mode): void {
  const why = mode.execute || mode.listing ? missingPrivileges() : null;
  if (why) {
    err('dtrace: failed to initialize dtrace: DTrace requires additional privileges\n');
    throw new Fatal(why);
  }
  const unavailable = mode.execute ? addonUnavailable() : null;
  if (unavailable) throw new Fatal(`failed to initialize dtrace: ${unavailable.message}`);
}

/** Pass 3: start the -c commands and grab the -p processes, in command-line order. */
export async function startProcesses(args: ParsedArgs, procs: ProcessSet, options: ReadonlyMap<string, string>): Promise<void> {
  const evaltime = optionValue(options, 'evaltime');
  try {
    for (const { letter, value } of args.options) {
      if (letter === 'c') {
        // Until it execs, the process is the shell that started it: tell the pid provider what
        // it will run, so that pid$target probes name the command's own functions.
        const proc = await procs.create(value!);
        if (evaltime === 'postinit' || evaltime === 'main') await procs.runToMain(proc);
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

/**
 * Pass 4: compile every program into one, or print the compile error and return null. The
 * program's options (its pragmas over -x) become the run's options.
 */
export function compileSources(s: Settings, args: ParsedArgs, registry: ProbeRegistry, procs: ProcessSet): Compiled | null {
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
