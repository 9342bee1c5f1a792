// USDT: the statically defined probes of user programs, from their SystemTap SDT notes.
//
//   PROVIDER<PID>:MODULE:FUNCTION:NAME    e.g. python1234:python3.11:_PyEval_EvalFrameDefault:function-entry
//
// Every object the process has mapped is searched for .note.stapsdt; each note is one probe site:
// a provider, a name (where DTrace's "__" stands for "-"), the address of the site's nop, an
// optional semaphore (a u16 the program tests before preparing the arguments) and the arguments'
// locations written as assembler operands ("-4@%edi 8@-16(%rbp) 4@$5"). Several sites with the same
// name in one function share one probe. Semaphores are handed to the kernel as the uprobe's
// reference counter (ref_ctr_offset), so the kernel raises them while dtrace has the probe in place
// and lowers them when it is gone.
//
// A provider named by a glob or without a pid (postgresql*:::query-start, python:::line) means that
// provider in every process: the probe is a uprobe on the binary or library itself (no pid), so it
// fires in every process mapping the file -- those that start later too -- and the kernel raises
// the semaphore in each. Its probeprov is the bare name completed by the firing pid at run time.
// The files searched are those running processes map and the executables of $PATH.

import { matchField, isGlob } from './glob.js';
import { elfOf, mappedObjects, objectsMatching, pidOf, PID_ATTRIBUTES } from './pid.js';
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { basename } from 'node:path';
import { hasSdtNotes, readElf, type ElfFile, type SdtNote } from '../sys/elf.js';
import { debugFile } from '../sys/symbols.js';
import { readDof } from '../dof/reader.js';
import type { UsdtProbe } from '../dof/program.js';
import type { ArgSource, Probe, ProbeArg, ProbeSpec, Provider, SemaphoreHold } from './provider.js';

/** x86_64 register names in SDT operands, by the 64-bit register they are part of. */
const REGISTER_ALIASES: Record<string, string> = {};
for (const [r64, r32, r16, r8] of [
  ['rax', 'eax', 'ax', 'al'], ['rbx', 'ebx', 'bx', 'bl'], ['rcx', 'ecx', 'cx', 'cl'], ['rdx', 'edx', 'dx', 'dl'],
  ['rsi', 'esi', 'si', 'sil'], ['rdi', 'edi', 'di', 'dil'], ['rbp', 'ebp', 'bp', 'bpl'], ['rsp', 'esp', 'sp', 'spl'],
]) {
  for (const n of [r64, r32, r16, r8]) REGISTER_ALIASES[n] = r64;
}
for (let i = 8; i <= 15; i++) for (const s of ['', 'd', 'w', 'b']) REGISTER_ALIASES[`r${i}${s}`] = `r${i}`;
REGISTER_ALIASES.rip = 'rip';

/**
 * One SDT argument specification ("-4@%edi", "8@-16(%rbp)", "4@$5", or a bare operand meaning 8
 * bytes) as an argument source; { kind: 'none' } for forms dtrace cannot read (symbol-relative,
 * indexed, high-byte registers).
 */
export function parseSdtArg(spec: string): ArgSource {
  const m = /^(-?)(1|2|4|8)@(.*)$/.exec(spec);
  const signed = m ? m[1] === '-' : false;
  const size = (m ? Number(m[2]) : 8) as 1 | 2 | 4 | 8;
  const operand = m ? m[3] : spec;
  let o: RegExpExecArray | null;
  if ((o = /^%(\w+)$/.exec(operand))) {
    const reg = REGISTER_ALIASES[o[1]];
    return reg ? { kind: 'register', reg, size, signed } : { kind: 'none' };
  }
  if ((o = /^\$(-?(?:0x[0-9a-fA-F]+|\d+))$/.exec(operand))) {
    let value = o[1].startsWith('-') ? -BigInt(o[1].slice(1)) : BigInt(o[1]);
    value = signed ? BigInt.asIntN(size * 8, value) : BigInt.asUintN(size * 8, value);
    return { kind: 'constant', value };
  }
  if ((o = /^(-?(?:0x[0-9a-fA-F]+|\d+))?\(%(\w+)\)$/.exec(operand))) {
    const reg = REGISTER_ALIASES[o[2]];
    if (!reg || reg === 'rip') return { kind: 'none' };
    const disp = o[1] === undefined ? 0 : o[1].startsWith('-') ? -Number(o[1].slice(1)) : Number(o[1]);
    return { kind: 'memory', reg, disp, size, signed };
  }
  return { kind: 'none' };
}

/** An SDT argument string's sources, arg0 first. */
export function parseSdtArgs(args: string): ArgSource[] {
  return args.trim() === '' ? [] : args.trim().split(/\s+/).map(parseSdtArg);
}

/** DTrace spells the "-" of a probe name "__" in C; SDT notes keep the C spelling. */
export function sdtProbeName(name: string): string {
  return name.replace(/__/g, '-');
}

/** A USDT provider name with its process: 'python1234' -> { provider: 'python', pid: 1234 }. */
function splitProviderName(providerName: string): { provider: string; pid: number } | null {
  const m = /^([A-Za-z_][A-Za-z0-9_]*?)([1-9]\d*)$/.exec(providerName);
  if (!m || isGlob(providerName)) return null;
  const pid = pidOf(providerName, m[1]);
  return pid === null ? null : { provider: m[1], pid };
}

export class UsdtProvider implements Provider {
  readonly name = 'usdt';
  readonly attributes = PID_ATTRIBUTES;

  /** @param reserved the other providers' names, which are never USDT providers */
  constructor(private readonly reserved: ReadonlySet<string> = new Set()) {}

  list(): Probe[] {
    return [];
  }

  /**
   * NAME<digits> except pid<digits> (one process's provider); a glob (postgresql*); and a bare
   * name some program or library on the system provides (postgresql): those two name the
   * provider in every process of the binaries that have it. With a module that is a path (`-l -m
   * /usr/lib/postgresql/15/bin/postgres`), any provider of that file, running or not.
   */
  ownsProviderName(providerName: string, module?: string): boolean {
    const p = splitProviderName(providerName);
    if (p !== null) return p.provider !== 'pid';
    if (isGlob(providerName) || (module?.startsWith('/') && (providerName === '' || /^[A-Za-z_]\w*$/.test(providerName)))) return true;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(providerName) || this.reserved.has(providerName) || providerName === 'pid') return false;
    return sdtObjects().some((path) => readNotes(path).some((n) => n.provider === providerName));
  }

  provide(spec: ProbeSpec): Probe[] {
    const p = splitProviderName(spec.provider);
    if (p) return p.provider === 'pid' ? [] : probesOf(p.pid, spec, (provider) => provider === p.provider);
    return binaryProbes(spec);
  }
}

/** Processes dtrace started (-c) or grabbed (-p): their objects are searched too. */
const tracedProcesses = new Set<number>();

/** Tell the usdt provider about a process dtrace traces. */
export function announceProcess(pid: number): void {
  tracedProcesses.add(pid);
  objectList = null;
}

let objectList: string[] | null = null;

/** Where programs not running yet are looked for: the user's $PATH, which the CLI hands over. */
let programDirs = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

export function setProgramDirs(dirs: string[]): void {
  programDirs = dirs;
  objectList = null;
}

/**
 * Every object that may run with SDT probes while dtrace traces, holding SDT notes: those mapped
 * by running processes (dtrace's own aside), those -c and -p processes map or will map, and the
 * executables of $PATH (a program not running yet). Each by its real path, once.
 */
function sdtObjects(): string[] {
  if (objectList) return objectList;
  const paths = new Set<string>();
  const add = (file: string) => {
    try {
      paths.add(realpathSync(file));
    } catch {
      /* gone */
    }
  };
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d) && Number(d) !== process.pid);
  } catch {
    /* no /proc */
  }
  for (const pid of pids) {
    let maps = '';
    try {
      maps = readFileSync(`/proc/${pid}/maps`, 'utf8');
    } catch {
      continue;
    }
    for (const m of maps.matchAll(/^\S+\s+\S+\s+\S+\s+\S+\s+[1-9]\d*\s+(\/.*)$/gm)) {
      if (!m[1].endsWith(' (deleted)')) paths.add(m[1]);
    }
  }
  for (const pid of tracedProcesses) {
    try {
      for (const o of mappedObjects(pid)) add(o.path);
    } catch {
      /* exited */
    }
  }
  for (const dir of new Set(programDirs.filter((d) => d.startsWith('/')))) {
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const n of names) add(`${dir}/${n}`);
  }
  objectList = [...paths].filter(hasSdtNotes).sort();
  return objectList;
}

function readNotes(path: string): SdtNote[] {
  try {
    return readElf(path).sdtNotes();
  } catch {
    return [];
  }
}

/**
 * The probes a description with a globbed or bare provider names, one per probe of each binary
 * or library: a uprobe on the file, so it fires in every process that maps it, those started
 * later included, and its semaphore is raised in each (the kernel's reference counter).
 */
function binaryProbes(spec: ProbeSpec): Probe[] {
  const byKey = new Map<string, Probe>();
  const byPath = spec.module.startsWith('/');
  const moduleGlob = spec.module === '' || byPath ? '*' : spec.module;
  for (const path of byPath ? objectAt(spec.module) : sdtObjects()) {
    const module = basename(path);
    if (!matchField(moduleGlob, module)) continue;
    let elf: ElfFile;
    try {
      elf = readElf(path);
    } catch {
      continue;
    }
    for (const note of elf.sdtNotes()) {
      if (note.provider === 'pid' || !matchField(spec.provider, note.provider)) continue;
      const site = siteProbe(elf, path, module, note, spec, undefined);
      if (!site) continue;
      site.provider = note.provider;
      site.perProcess = { processes: () => processesMapping(path) };
      const key = `${site.provider}:${module}:${site.func}:${site.name}`;
      const first = byKey.get(key);
      if (!first) byKey.set(key, site);
      else (first.sites ??= []).push({ attach: site.attach, args: site.args });
    }
  }
  return [...byKey.values()];
}

/**
 * The USDT providers of the running processes (dtrace aside), each with its pid (python1234), in
 * pid order: what a plain `dtrace -l` lists after the kernel's probes.
 */
export function runningUsdtProviders(): string[] {
  const out: string[] = [];
  const providersOf = new Map<string, string[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    let maps = '';
    try {
      maps = readFileSync(`/proc/${d}/maps`, 'utf8');
    } catch {
      continue; // exited
    }
    const names = new Set<string>();
    for (const m of maps.matchAll(/^\S+\s+\S+\s+\S+\s+\S+\s+[1-9]\d*\s+(\/.*)$/gm)) {
      const path = m[1];
      if (path.endsWith(' (deleted)')) continue;
      let provs = providersOf.get(path);
      if (!provs) providersOf.set(path, (provs = hasSdtNotes(path) ? [...new Set(readNotes(path).map((n) => n.provider))] : []));
      for (const p of provs) if (p !== 'pid') names.add(p);
    }
    for (const p of [...names].sort()) out.push(`${p}${d}`);
  }
  return out.sort((a, b) => Number(/\d+$/.exec(a)![0]) - Number(/\d+$/.exec(b)![0]) || (a < b ? -1 : 1));
}

/** The object at a path the user gave, by its real path, when it has SDT notes. */
function objectAt(file: string): string[] {
  try {
    const path = realpathSync(file);
    return hasSdtNotes(path) ? [path] : [];
  } catch {
    return [];
  }
}

/** The running processes (dtrace aside) that have a file mapped. */
function processesMapping(path: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${d}/maps`, 'utf8').includes(` ${path}\n`)) out.push(Number(d));
    } catch {
      /* exited */
    }
  }
  return out.sort((a, b) => a - b);
}

/** The function holding a probe site: from the object's symbols, else its separate debug file's. */
function functionAt(elf: ElfFile, path: string, pc: bigint): string {
  const f = elf.functionAt(pc);
  if (f) return f.name;
  if (elf.hasSymtab()) return '';
  let debug: ElfFile | null = debugFiles.get(path) ?? null;
  if (!debugFiles.has(path)) debugFiles.set(path, (debug = debugFile(elf, path)));
  return debug?.functionAt(pc)?.name ?? '';
}

const debugFiles = new Map<string, ElfFile | null>();

/** The probe for one SDT note when `spec` (but its provider) matches it; pid: one process's. */
function siteProbe(elf: ElfFile, path: string, module: string, note: SdtNote, spec: ProbeSpec, pid: number | undefined): Probe | null {
  const name = sdtProbeName(note.name);
  if (!matchField(spec.name, name)) return null;
  const func = functionAt(elf, path, note.pc);
  if (!matchField(spec.function, func)) return null;
  const offset = elf.fileOffset(note.pc);
  if (offset === null) return null;
  const refCtrOffset = note.semaphore !== 0n ? elf.fileOffset(note.semaphore) ?? undefined : undefined;
  const alsoRaise = note.provider === 'python' && note.name === 'function__entry' ? python311Tracing(elf) : undefined;
  return {
    id: 0, provider: `${note.provider}${pid ?? ''}`, module, func, name,
    attach: { kind: 'uprobe', path, offset, retprobe: false, pid, refCtrOffset, alsoRaise },
    args: siteArgs(elf, note),
    ...mappedArgs(elf, note),
  };
}

/** Does a declared probe map its arguments (fewer, more or reordered translated arguments)? */
function isMapped(d: { nativeTypes: string[]; translatedTypes: string[]; argMap: number[] }): boolean {
  return d.translatedTypes.length !== d.nativeTypes.length || d.argMap.some((a, k) => a !== k);
}

/** args[] of a site whose declaration maps its arguments (Probe.xargs); {} when it does not. */
function mappedArgs(elf: ElfFile, note: SdtNote): { xargs?: Probe['xargs'] } {
  const declared = declaredProbes(elf).get(`${note.provider}:${sdtProbeName(note.name)}`);
  if (!declared || !isMapped(declared)) return {};
  return {
    xargs: declared.translatedTypes.map((type, k) => {
      const arg = declared.argMap[k]!;
      const native = declared.nativeTypes[arg];
      return { type, arg, ...(native !== undefined && native !== type ? { native } : {}) };
    }),
  };
}

/**
 * A site's arguments, typed: as the program's own provider declares them when it was linked with
 * our `dtrace -G` object (its DOF, in .SUNW_dof, keeps each probe's types), else as the note's
 * operand sizes say (-4@ is an int32_t, 8@ a uint64_t), as a SystemTap-built program only tells.
 */
function siteArgs(elf: ElfFile, note: SdtNote): ProbeArg[] {
  const declared = declaredProbes(elf).get(`${note.provider}:${sdtProbeName(note.name)}`);
  const specs = note.args.trim() === '' ? [] : note.args.trim().split(/\s+/);
  return specs.map((spec, index): ProbeArg => {
    const from = parseSdtArg(spec);
    if (declared && declared.nativeTypes.length === specs.length) {
      const type = declared.nativeTypes[index];
      const xlated = declared.translatedTypes[index];
      // Unmapped, args[N] is argN in the declared type, translated from the native one if it differs.
      if (isMapped(declared)) return { index, type, from };
      return { index, type: xlated, ...(type !== undefined && type !== xlated ? { native: type } : {}), from };
    }
    const m = /^(-?)(1|2|4|8)@/.exec(spec);
    return { index, type: m ? `${m[1] === '-' ? '' : 'u'}int${Number(m[2]) * 8}_t` : null, from };
  });
}

/** The probes an object's .SUNW_dof declares (from `dtrace -G`), by "provider:name"; cached per object. */
function declaredProbes(elf: ElfFile): Map<string, UsdtProbe> {
  let probes = declared.get(elf);
  if (probes) return probes;
  declared.set(elf, (probes = new Map()));
  const sec = elf.section('.SUNW_dof');
  if (!sec) return probes;
  try {
    for (const provider of readDof(elf.data.subarray(sec.offset, sec.offset + sec.size)).providers ?? [])
      for (const probe of provider.probes) probes.set(`${provider.name}:${probe.name}`, probe);
  } catch {
    // Not DOF we can read: the notes' sizes type the arguments.
  }
  return probes;
}

const declared = new WeakMap<ElfFile, Map<string, UsdtProbe>>();

/** The USDT probes of process `pid` whose provider `wanted` accepts and that `spec` matches. */
function probesOf(pid: number, spec: ProbeSpec, wanted: (provider: string) => boolean): Probe[] {
  if (pid === process.pid) return [];
  let objects;
  try {
    objects = objectsMatching(mappedObjects(pid), spec.module === '' ? '*' : spec.module);
  } catch {
    return []; // no such process
  }
  const byKey = new Map<string, Probe>();
  for (const obj of objects) {
    const elf = elfOf(obj);
    if (!elf) continue;
    for (const note of elf.sdtNotes()) {
      if (!wanted(note.provider)) continue;
      const probe = siteProbe(elf, obj.path, obj.module, note, spec, pid);
      if (!probe) continue;
      const key = `${probe.provider}:${probe.module}:${probe.func}:${probe.name}`;
      const first = byKey.get(key);
      if (!first) byKey.set(key, probe);
      else (first.sites ??= []).push({ attach: probe.attach, args: probe.args });
    }
  }
  return [...byKey.values()];
}

/**
 * CPython 3.11 reaches its function-entry site only on its tracing path, which it takes while the
 * `line` probe's semaphore is raised (cpython issue #98894, open for 3.11; 3.12 dropped the probe;
 * function-return fires as it should). So for 3.11 -- known by its Py_Version, which 3.11
 * introduced -- function-entry holds the line semaphore up too, by a uprobe on the object's .init
 * code (run once, when it is loaded) rather than on the line site, which would trap on every
 * line; the line site is the fallback.
 */
function python311Tracing(elf: ElfFile): SemaphoreHold | undefined {
  const version = elf.objectBytes('Py_Version');
  if (!version || version.length < 4 || version.readUInt32LE(0) >>> 16 !== 0x030b) return undefined;
  const line = elf.sdtNotes().find((n) => n.provider === 'python' && n.name === 'line' && n.semaphore !== 0n);
  const refCtrOffset = line ? elf.fileOffset(line.semaphore) : null;
  const lineSite = line ? elf.fileOffset(line.pc) : null;
  if (refCtrOffset === null || lineSite === null) return undefined;
  const init = elf.section('.init');
  const initSite = init && init.size > 0 ? elf.fileOffset(init.addr) : null;
  return { refCtrOffset, sites: initSite === null ? [lineSite] : [initSite, lineSite] };
}
