// The pid provider: user function entry, return and instruction-offset probes through uprobes.
//
//   pid<PID>:<module>:<function>:entry      the function's first instruction; arg0.. its arguments
//   pid<PID>:<module>:<function>:return     the function's return (a uretprobe); arg0 0, arg1 the
//                                           return value, as DTrace on Linux does (a uretprobe fires
//                                           in the caller, so the return instruction is unknown)
//   pid<PID>:<module>:<function>:<hex>      the instruction at that offset in the function
//
// Modules are the objects the process has mapped (/proc/PID/maps), named by basename (libc.so.6);
// a.out names the main executable. Functions are FUNC symbols of nonzero size (.symtab, else
// .dynsym). Probes are created when a description names them (provide()); each is a perf event fd
// of dtrace, so they go away when dtrace exits. A glob name matches entry and return, and, when
// the description names one function exactly (pid123:libc.so.6:memcpy:) or the function is the
// executable's (pid123:a.out::), every instruction of it (sys/x86.ts finds where each begins).

import { execFileSync } from 'node:child_process';
import { readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { basename } from 'node:path';
import { readElf, type ElfFile, type FunctionSymbol } from '../sys/elf.js';
import { isGlob, matchField } from './glob.js';
import { instructionOffsets } from '../sys/x86.js';
import { type Probe, type ProbeArg, type ProbeSpec, type Provider } from './provider.js';
import { attr, type ProviderAttributes } from '../abi/stability.js';

export const PID_ATTRIBUTES: ProviderAttributes = {
  provider: attr('Evolving', 'Evolving', 'ISA'),
  module: attr('Private', 'Private', 'Unknown'),
  function: attr('Private', 'Private', 'Unknown'),
  name: attr('Evolving', 'Evolving', 'ISA'),
  args: attr('Private', 'Private', 'Unknown'),
};

/** x86_64 System V: the registers holding a function's first six integer arguments. */
const ARG_REGISTERS = ['rdi', 'rsi', 'rdx', 'rcx', 'r8', 'r9'];

/** An object mapped into a process. */
export interface MappedObject {
  path: string; // as in /proc/PID/maps
  module: string; // basename: the probe module name
  main: boolean; // the process's executable (a.out)
}

/** Processes that dtrace started stopped before exec (-c), with the program they will exec. */
const pendingExec = new Map<number, string>();

/**
 * -c starts a command stopped before it execs: until it does, /proc/PID/maps shows the shell.
 * Announce the program here, and probes are made on the objects it will map (it and the libraries
 * its dynamic linker lists); uprobes on a file take effect when the process maps it.
 */
export function announceExec(pid: number, program: string): void {
  const path = realpathSync(program);
  try {
    readElf(path);
  } catch {
    return; // a script: the interpreter it names is what will run, so wait for the exec
  }
  pendingExec.set(pid, path);
}

/**
 * The objects a process has mapped (file-backed, in address order, each once), or for a process
 * that has yet to exec an announced program, the objects that program will map.
 */
export function mappedObjects(pid: number): MappedObject[] {
  let exe = '';
  try {
    exe = readlinkSync(`/proc/${pid}/exe`);
  } catch {
    /* a kernel thread or a process that is exiting */
  }
  const pending = pendingExec.get(pid);
  if (pending !== undefined) {
    if (exe !== pending) return objectsOfProgram(pending);
    pendingExec.delete(pid);
  }
  const maps = readFileSync(`/proc/${pid}/maps`, 'utf8');
  const seen = new Set<string>();
  const out: MappedObject[] = [];
  for (const line of maps.split('\n')) {
    // address perms offset dev inode path
    const m = /^\S+\s+\S+\s+\S+\s+\S+\s+(\d+)\s+(\/.*)$/.exec(line);
    if (!m || m[1] === '0' || m[2].endsWith(' (deleted)') || seen.has(m[2])) continue;
    seen.add(m[2]);
    out.push({ path: m[2], module: basename(m[2]), main: m[2] === exe });
  }
  return out;
}

/**
 * The objects a program maps when it runs: itself, then what its dynamic linker lists
 * (`ld.so --list` only resolves libraries; it does not run the program).
 */
function objectsOfProgram(program: string): MappedObject[] {
  const out: MappedObject[] = [{ path: program, module: basename(program), main: true }];
  const interp = readElf(program).interpreter();
  if (!interp) return out;
  let listing = '';
  try {
    listing = execFileSync(interp, ['--list', program], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return out;
  }
  const seen = new Set([program]);
  for (const line of listing.split('\n')) {
    // "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" or "\t/lib64/ld-linux-x86-64.so.2 (0x...)"
    const m = /^\s*(?:\S+ => )?(\/\S+) \(0x[0-9a-f]+\)$/.exec(line);
    if (!m) continue;
    let path: string;
    try {
      path = realpathSync(m[1]);
    } catch {
      continue;
    }
    if (seen.has(path)) continue;
    seen.add(path);
    out.push({ path, module: basename(path), main: false });
  }
  return out;
}

/**
 * The objects a module pattern names: a.out is the executable; anything else globs basenames,
 * which may be given without their version (libc.so for libc.so.6) or without any suffix (libc),
 * as DTrace matches them.
 */
export function objectsMatching(objects: MappedObject[], module: string): MappedObject[] {
  if (module === 'a.out') return objects.filter((o) => o.main);
  return objects.filter((o) => moduleNames(o.module).some((n) => matchField(module, n)));
}

/** A basename and its shorter forms: libc.so.6, libc.so, libc. */
function moduleNames(base: string): string[] {
  const out = [base];
  const so = base.indexOf('.so.');
  if (so > 0) out.push(base.slice(0, so + 3));
  const dot = base.indexOf('.');
  if (dot > 0) out.push(base.slice(0, dot));
  return out;
}

/** Reads the ELF file of a mapped object; null when it is not one we can read. */
export function elfOf(o: MappedObject): ElfFile | null {
  try {
    return readElf(o.path);
  } catch {
    return null;
  }
}

/** A numeric provider name suffix: 'pid1234' -> 1234 for prefix 'pid'; null otherwise. */
export function pidOf(providerName: string, prefix: string): number | null {
  if (!providerName.startsWith(prefix)) return null;
  const digits = providerName.slice(prefix.length);
  if (!/^[1-9]\d*$/.test(digits)) return null;
  return Number(digits);
}

function isRunning(pid: number): boolean {
  try {
    readFileSync(`/proc/${pid}/stat`);
    return true;
  } catch {
    return false;
  }
}

const HLT = 0xf4;

/** Arguments past the registers' six are on the stack, above the return address (arg6 at rsp+8). */
const STACK_ARGS = 4;

const ENTRY_ARGS: ProbeArg[] = [
  ...ARG_REGISTERS.map((reg, index): ProbeArg => ({ index, type: null, from: { kind: 'register', reg, size: 8, signed: false } })),
  ...Array.from({ length: STACK_ARGS }, (_, i): ProbeArg => ({
    index: ARG_REGISTERS.length + i, type: null, from: { kind: 'memory', reg: 'rsp', disp: 8 * (i + 1), size: 8, signed: false },
  })),
];

const RETURN_ARGS: ProbeArg[] = [
  { index: 0, type: null, from: { kind: 'constant', value: 0n } },
  { index: 1, type: null, from: { kind: 'register', reg: 'rax', size: 8, signed: false } },
];

export class PidProvider implements Provider {
  readonly name = 'pid';
  readonly attributes = PID_ATTRIBUTES;

  list(): Probe[] {
    return [];
  }

  ownsProviderName(providerName: string): boolean {
    return pidOf(providerName, 'pid') !== null || providerName === 'pid0';
  }

  refusal(spec: ProbeSpec): { tag: string; message: string } | undefined {
    // As DTrace words it (dt_pid.c): pid0 is no process; a pid with no process cannot be grabbed.
    if (spec.provider === 'pid0') return { tag: 'D_PROC_BADPID', message: 'pid0 does not contain a valid pid' };
    const pid = pidOf(spec.provider, 'pid');
    if (pid === null || pid === process.pid) return undefined;
    if (!isRunning(pid)) return { tag: 'D_PROC_GRAB', message: `failed to grab process ${pid}` };
    return pidRefusal(pid, spec);
  }

  provide(spec: ProbeSpec): Probe[] {
    const pid = pidOf(spec.provider, 'pid');
    if (pid === null || pid === process.pid || !isRunning(pid)) return [];
    const moduleGlob = spec.module === '' ? '*' : spec.module;
    const funcGlob = spec.function === '' ? '*' : spec.function;
    const name = spec.name === '' ? '*' : spec.name;
    const out: Probe[] = [];
    for (const obj of objectsMatching(mappedObjects(pid), moduleGlob)) {
      const elf = elfOf(obj);
      if (!elf) continue;
      for (const sym of functionsMatching(elf, funcGlob)) {
        // Offset probes for a glob function only in the executable, as DTrace makes them: a
        // library's every instruction would be hundreds of thousands of probes.
        out.push(...probesFor(pid, obj, elf, sym, name, obj.main || !isGlob(funcGlob)));
      }
    }
    return out;
  }
}

/**
 * Why a pid description names nothing, in DTrace's words (dt_pid.c): the '-' function outside
 * a.out or without an address, a function not in the module named, a probe name that is neither
 * entry, return nor an offset, an offset past the function's end.
 */
function pidRefusal(pid: number, spec: ProbeSpec): { tag: string; message: string } | undefined {
  if (spec.function === '-') {
    if (spec.module !== '' && spec.module !== 'a.out' && !isGlob(spec.module))
      return { tag: 'D_PROC_LIB', message: "only the a.out module is valid with the '-' function" };
    if (spec.name === '' || isGlob(spec.name))
      return { tag: 'D_PROC_NAME', message: "only individual addresses may be specified with the '-' function" };
    return undefined;
  }
  if (spec.function === '' || isGlob(spec.function)) return undefined;
  const objects = objectsMatching(mappedObjects(pid), spec.module === '' ? '*' : spec.module);
  const syms = objects.flatMap((o) => {
    const sym = elfOf(o)?.lookupFunction(spec.function);
    return sym ? [sym] : [];
  });
  if (syms.length === 0) {
    if (objects.length === 0 || spec.module === '' || isGlob(spec.module)) return undefined;
    return { tag: 'D_PROC_FUNC', message: `failed to lookup '${spec.function}' in module '${spec.module}'` };
  }
  if (spec.name === '' || isGlob(spec.name) || spec.name === 'entry' || spec.name === 'return') return undefined;
  const off = parseOffset(spec.name);
  if (off === null) return { tag: 'D_PROC_NAME', message: `'${spec.name}' is an invalid probe name` };
  const past = syms.find((s) => off >= s.size);
  if (past) return { tag: 'D_PROC_OFF', message: `offset 0x${off.toString(16)} outside of function '${past.name}'` };
  return undefined;
}

/**
 * The functions a pattern names in one object. An exact name is looked up in .symtab and .dynsym;
 * a glob walks .symtab (else .dynsym) by address, taking one of several names for the same code and
 * leaving out _init and _fini, whose sizes old linkers got wrong.
 */
function functionsMatching(elf: ElfFile, pattern: string): FunctionSymbol[] {
  if (!isGlob(pattern)) {
    const sym = elf.lookupFunction(pattern);
    return sym ? [sym] : [];
  }
  const out: FunctionSymbol[] = [];
  let last: FunctionSymbol | null = null;
  for (const sym of elf.functions()) {
    if (last && last.value === sym.value && last.size === sym.size) continue;
    if (sym.name === '_init' || sym.name === '_fini') continue;
    if (matchField(pattern, sym.name)) {
      out.push(sym);
      last = sym;
    }
  }
  return out;
}

function probesFor(pid: number, obj: MappedObject, elf: ElfFile, sym: FunctionSymbol, name: string, offsets: boolean): Probe[] {
  const out: Probe[] = [];
  const make = (probeName: string, at: bigint, retprobe: boolean): void => {
    const offset = elf.fileOffset(at);
    if (offset === null) return;
    out.push({
      id: 0, provider: `pid${pid}`, module: obj.module, func: sym.name, name: probeName,
      attach: { kind: 'uprobe', path: obj.path, offset, retprobe, pid },
      args: (retprobe ? RETURN_ARGS : ENTRY_ARGS).map((a) => ({ ...a })),
    });
  };
  let named = false;
  if (matchField(name, 'entry')) {
    make('entry', sym.value, false);
    named = true;
  }
  // The function at the ELF entry point (_start) is jumped to by the kernel, never called: it has
  // no return address for a uretprobe to replace, which would overwrite argc on the initial stack
  // instead. It never returns, so it has no return probe.
  if (matchField(name, 'return') && !(elf.entry !== 0n && sym.value <= elf.entry && elf.entry < sym.value + sym.size)) {
    make('return', sym.value, true);
    named = true;
  }
  if (!named && !isGlob(name)) {
    const off = parseOffset(name);
    if (off !== null && off < sym.size) make(off.toString(16), sym.value + off, false);
  } else if (offsets && isGlob(name)) {
    // A function named exactly, or the executable's: its instructions too, each a probe named by
    // its offset in hex.
    const at = elf.fileOffset(sym.value);
    if (at === null) return out;
    const code = elf.data.subarray(at, at + Number(sym.size));
    for (const o of instructionOffsets(code)) {
      // No probe on hlt (_start's last instruction, never reached), which uprobes refuse.
      if (code[o] === HLT) continue;
      if (matchField(name, o.toString(16))) make(o.toString(16), sym.value + BigInt(o), false);
    }
  }
  return out;
}

/** A probe name as an offset into the function: hexadecimal, with or without 0x. */
export function parseOffset(name: string): bigint | null {
  const m = /^(?:0[xX])?([0-9a-fA-F]+)$/.exec(name);
  return m ? BigInt('0x' + m[1]) : null;
}
