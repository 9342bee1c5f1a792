// Symbols for the stack and symbol actions: kernel addresses through /proc/kallsyms, user addresses
// through a process's mappings (/proc/PID/maps) and the ELF symbol tables of the mapped files.
//
// Names follow DTrace for Linux: a kernel frame is `module`function+0xoff`, the core kernel's module
// being "vmlinux" and a loadable module's the name kallsyms shows in brackets; a user frame is
// `object`function+0xoff` with the object's base name. A process may exit before its records are
// printed, so its mappings are read once and kept (remember() reads them while it still runs).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type ElfFile, type FunctionSymbol, readElf } from './elf.js';
import { systemPaths } from './paths.js';

/** A resolved address: the object (module) it lies in and, when known, its symbol. */
export interface SymbolInfo {
  object: string;
  /** Function name and its start address (in the address space the lookup was made in). */
  name?: string;
  start?: bigint;
}

// ------------------------------------------------------------------------------------- kernel

export interface KernelSymbol {
  addr: bigint;
  name: string;
  module: string;
}

/**
 * Parse /proc/kallsyms text: code and data symbols with their module, sorted by address
 * (absolute and undefined symbols are no addresses in the kernel's image).
 */
export function parseKallsyms(text: string): KernelSymbol[] {
  const out: KernelSymbol[] = [];
  for (const line of text.split('\n')) {
    const m = /^([0-9a-fA-F]+) ([tTwWdDbBrRvV]) (\S+)(?:\s+\[(\S+)\])?/.exec(line);
    if (!m) continue;
    const addr = BigInt('0x' + m[1]);
    if (addr === 0n) continue; // addresses hidden from this reader
    out.push({ addr, name: m[3], module: m[4] ?? 'vmlinux' });
  }
  return out.sort((a, b) => (a.addr < b.addr ? -1 : a.addr > b.addr ? 1 : 0));
}

/** The last element whose key is <= x, by binary search over a sorted array; -1 if none. */
function floorIndex<T>(items: T[], x: bigint, key: (t: T) => bigint): number {
  let lo = 0, hi = items.length - 1, found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (key(items[mid]) <= x) found = mid, lo = mid + 1;
    else hi = mid - 1;
  }
  return found;
}

/** How far past the highest kernel symbol an address may be and still belong to it. */
const LAST_SYMBOL_SPAN = 0x100000n;

export class KernelSymbols {
  constructor(private syms: KernelSymbol[]) {}

  static fromProc(): KernelSymbols {
    try {
      return new KernelSymbols(parseKallsyms(readFileSync(systemPaths.kallsyms, 'utf8')));
    } catch {
      return new KernelSymbols([]);
    }
  }

  /** The symbol at or before pc (kallsyms gives no sizes: a symbol runs to the next one). */
  lookup(pc: bigint): SymbolInfo | null {
    const i = floorIndex(this.syms, pc, (s) => s.addr);
    if (i < 0 || pc === 0n) return null;
    const s = this.syms[i];
    // Past the last symbol only its own neighbourhood counts as inside it.
    if (i === this.syms.length - 1 && pc - s.addr >= LAST_SYMBOL_SPAN) return null;
    return { object: s.module, name: s.name, start: s.addr };
  }

  /** The code range [start, next symbol) of a vmlinux function; null when unknown or hidden. */
  extent(name: string): [bigint, bigint] | null {
    const i = this.syms.findIndex((s) => s.name === name && s.module === 'vmlinux');
    if (i < 0 || i === this.syms.length - 1) return null;
    let j = i + 1;
    while (j < this.syms.length && this.syms[j].addr === this.syms[i].addr) j++;
    return j < this.syms.length ? [this.syms[i].addr, this.syms[j].addr] : null;
  }

  /** The lowest address of the module pc lies in (how mod() keys are told apart). */
  moduleBase(pc: bigint): bigint | null {
    const i = floorIndex(this.syms, pc, (s) => s.addr);
    if (i < 0) return null;
    const module = this.syms[i].module;
    let j = i;
    while (j > 0 && this.syms[j - 1].module === module) j--;
    return this.syms[j].addr;
  }
}

// --------------------------------------------------------------------------------------- user

export interface Mapping {
  start: bigint;
  end: bigint;
  offset: bigint; // file offset of start
  path: string;
}

/** Parse /proc/PID/maps text: file-backed mappings only (not [heap], [stack], anonymous). */
export function parseMaps(text: string): Mapping[] {
  const out: Mapping[] = [];
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) \S+ ([0-9a-f]+) \S+ \d+\s+(\/.*)$/.exec(line);
    if (!m) continue;
    const file = m[4].replace(/ \(deleted\)$/, '');
    out.push({ start: BigInt('0x' + m[1]), end: BigInt('0x' + m[2]), offset: BigInt('0x' + m[3]), path: file });
  }
  return out;
}

/** The function symbols of an ELF file sorted by address, and its loadable segments. */
interface ObjectSymbols {
  elf: ElfFile;
  funcs: FunctionSymbol[];
}

const PT_LOAD = 1;

/** Resolve an address in a process, given its mappings, through the mapped file's ELF symbols. */
export function lookupInMappings(maps: Mapping[], pc: bigint, load: (map: Mapping) => ObjectSymbols | null): SymbolInfo | null {
  const map = maps.find((m) => m.start <= pc && pc < m.end);
  if (!map) return null;
  const object = path.basename(map.path);
  const obj = load(map);
  if (!obj) return { object };
  // Process address -> file offset -> the ELF virtual address the symbol tables use.
  const fileOff = pc - map.start + map.offset;
  const seg = obj.elf.segments.find((s) => s.type === PT_LOAD && s.offset <= fileOff && fileOff < s.offset + s.filesz);
  if (!seg) return { object };
  const vaddr = fileOff - seg.offset + seg.vaddr;
  const i = floorIndex(obj.funcs, vaddr, (f) => f.value);
  // The nearest symbol below may be a small one inside a larger function: look a few further back.
  for (let j = i; j >= 0 && j > i - 8; j--) {
    let f = obj.funcs[j];
    if (!(f.value <= vaddr && vaddr < f.value + f.size)) continue;
    // Names for one address come preferred name first (elf.ts): take the first that holds pc.
    for (let k = j - 1; k >= 0 && obj.funcs[k].value === f.value; k--) {
      if (vaddr < obj.funcs[k].value + obj.funcs[k].size) f = obj.funcs[k];
    }
    return { object, name: f.name, start: pc - (vaddr - f.value) };
  }
  return { object };
}

/** How often a process's mappings may be read again for an address they did not hold. */
const REREAD_MS = 1000;

export class UserSymbols {
  private maps = new Map<number, Mapping[]>();
  private readAt = new Map<number, number>();
  private objects = new Map<string, ObjectSymbols | null>();

  /** Read and keep a process's mappings now (it may exit before its records are printed). */
  remember(pid: number): void {
    if (pid <= 0) return;
    const known = this.maps.get(pid);
    if (known && (known.length > 0 || Date.now() - (this.readAt.get(pid) ?? 0) < REREAD_MS)) return;
    this.read(pid);
  }

  private read(pid: number): Mapping[] | null {
    this.readAt.set(pid, Date.now());
    try {
      const maps = parseMaps(readFileSync(`/proc/${pid}/maps`, 'utf8'));
      this.maps.set(pid, maps);
      return maps;
    } catch {
      if (!this.maps.has(pid)) this.maps.set(pid, []);
      return null;
    }
  }

  /**
   * Read a process's mappings again while it lives, keeping the last ones read once it has gone:
   * so a -c process's addresses are still named after it exits.
   */
  refresh(pid: number): void {
    if (pid <= 0) return;
    const before = this.maps.get(pid);
    const now = this.read(pid);
    if ((!now || now.length === 0) && before && before.length > 0) this.maps.set(pid, before);
  }

  /** Set a process's mappings (tests, and processes whose maps were captured elsewhere). */
  setMappings(pid: number, maps: Mapping[]): void {
    this.maps.set(pid, maps);
  }

  lookup(pid: number, pc: bigint): SymbolInfo | null {
    this.remember(pid);
    const maps = this.maps.get(pid) ?? [];
    let hit = lookupInMappings(maps, pc, (m) => this.object(pid, m));
    if (!hit && Date.now() - (this.readAt.get(pid) ?? 0) >= REREAD_MS) {
      // Perhaps mapped after we looked (a library loaded later): look again while the process lives.
      const fresh = this.read(pid);
      if (fresh) hit = lookupInMappings(fresh, pc, (m) => this.object(pid, m));
    }
    return hit;
  }

  /** Start of the mapping holding pc (how umod() keys are told apart). */
  mappingBase(pid: number, pc: bigint): bigint | null {
    this.remember(pid);
    const maps = this.maps.get(pid) ?? [];
    const m = maps.find((x) => x.start <= pc && pc < x.end);
    if (!m) return null;
    // The object's first mapping: every segment of one file is one module.
    return maps.filter((x) => x.path === m.path).reduce((lo, x) => (x.start < lo ? x.start : lo), m.start);
  }

  /**
   * The symbols of a mapped file. The kernel's handle on the mapping (/proc/PID/map_files) is
   * read first: it is the file the process really mapped, even when the path now names another
   * file (deleted, upgraded, or replaced by a user); the path only when that handle is closed to us.
   */
  private object(pid: number, map: Mapping): ObjectSymbols | null {
    if (this.objects.has(map.path)) return this.objects.get(map.path)!;
    let obj: ObjectSymbols | null = null;
    for (const file of [`/proc/${pid}/map_files/${map.start.toString(16)}-${map.end.toString(16)}`, map.path]) {
      try {
        const elf = readElf(file);
        // A stripped object's full symbol table is in its separate debug file, when installed.
        const debug = elf.hasSymtab() ? null : debugFile(elf, map.path);
        obj = { elf, funcs: debug ? debug.functions() : elf.functions() };
        break;
      } catch {
        // not readable this way (or not an ELF regular file): try the next, else no symbols
      }
    }
    this.objects.set(map.path, obj);
    return obj;
  }
}

/**
 * The separate debug file of a stripped object, as gdb finds one: by build-id
 * (DEBUG/.build-id/xx/rest.debug), else by .gnu_debuglink's name in the object's directory, its
 * .debug/ subdirectory, or DEBUG plus that directory. It must hold a .symtab, and by build-id
 * match the object's; its symbols have the object's link addresses.
 */
export function debugFile(elf: ElfFile, objectPath: string, root = systemPaths.debugDir): ElfFile | null {
  const id = elf.buildId();
  const candidates: string[] = [];
  if (id && id.length > 2) candidates.push(`${root}/.build-id/${id.slice(0, 2)}/${id.slice(2)}.debug`);
  const link = elf.debugLink();
  if (link && !link.includes('/')) {
    const dir = path.dirname(objectPath);
    candidates.push(`${dir}/${link}`, `${dir}/.debug/${link}`, `${root}${dir}/${link}`);
  }
  for (const file of candidates) {
    if (file === objectPath) continue;
    try {
      const dbg = readElf(file);
      if (id && dbg.buildId() !== null && dbg.buildId() !== id) continue;
      if (dbg.hasSymtab()) return dbg;
    } catch {
      // not there
    }
  }
  return null;
}

// --------------------------------------------------------------------------------- formatting

/** `object`name+0xoff`, `object`name`, `object`0xpc` or `0xpc`, as dt_print_stack prints a frame. */
export function frameText(pc: bigint, info: SymbolInfo | null): string {
  if (info?.name !== undefined && info.start !== undefined) {
    return pc > info.start ? `${info.object}\`${info.name}+0x${(pc - info.start).toString(16)}` : `${info.object}\`${info.name}`;
  }
  if (info) return `${info.object}\`0x${pc.toString(16)}`;
  return `0x${pc.toString(16)}`;
}

/** The symbol tables the consumer uses: the running kernel's and traced processes'. */
export class Symbolizer {
  private kernelSyms: KernelSymbols | undefined;
  readonly user = new UserSymbols();

  constructor(kernel?: KernelSymbols) {
    this.kernelSyms = kernel;
  }

  get kernel(): KernelSymbols {
    return (this.kernelSyms ??= KernelSymbols.fromProc());
  }
}

let shared: Symbolizer | undefined;

/** The process-wide symbolizer (kallsyms read once, process mappings kept per pid). */
export function symbolizer(): Symbolizer {
  return (shared ??= new Symbolizer());
}
