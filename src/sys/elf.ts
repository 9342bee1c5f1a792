// A small ELF64 (little-endian) reader for the user-space providers: section headers, function
// symbols from .symtab or .dynsym (and the bytes of a named data symbol), program headers (to turn
// a virtual address into the file offset that uprobes want) and SystemTap SDT notes (.note.stapsdt).
//
// Layouts are those of the System V gABI (Elf64_Ehdr, Elf64_Shdr, Elf64_Phdr, Elf64_Sym, Elf64_Nhdr)
// and of SystemTap's SDT note (three addresses, then provider, name and argument strings).

import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from 'node:fs';

const ELFCLASS64 = 2;
const ELFDATA2LSB = 1;
export const ET_REL = 1;
export const ET_EXEC = 2;
export const ET_DYN = 3;
const SHT_SYMTAB = 2;
const SHT_RELA = 4;
const SHT_NOTE = 7;
const SHT_NOBITS = 8;
const SHT_DYNSYM = 11;
const SHN_UNDEF = 0;
const SHN_XINDEX = 0xffff;
const PT_LOAD = 1;
const PT_INTERP = 3;
const STT_OBJECT = 1;
const STT_FUNC = 2;
const NT_STAPSDT = 3;
const NT_GNU_BUILD_ID = 3;

export class ElfError extends Error {}

export interface Section {
  name: string;
  type: number;
  flags: bigint;
  addr: bigint;
  offset: number;
  size: number;
  link: number;
  info: number;
  entsize: number;
}

/** An Elf64_Sym of .symtab, as it is (relocations name symbols by their index). */
export interface RawSymbol {
  name: string;
  type: number; // STT_*
  bind: number; // STB_*
  shndx: number; // the section it is defined in (SHN_UNDEF: none)
  value: bigint;
  size: bigint;
}

/** An Elf64_Rela of a relocation section. */
export interface Relocation {
  offset: bigint; // where, in the section the relocations apply to
  type: number; // R_X86_64_*
  symbol: number; // index into the symbol table
  addend: bigint;
}

export interface Segment {
  type: number;
  flags: number;
  offset: bigint;
  vaddr: bigint;
  filesz: bigint;
  memsz: bigint;
}

/** A defined function symbol of nonzero size. */
export interface FunctionSymbol {
  name: string;
  value: bigint; // virtual address in the object's own address space
  size: bigint;
  /** STB_* (0 local, 1 global, 2 weak): which of several names for one address to prefer. */
  bind?: number;
}

/** One SystemTap SDT probe site, addresses already adjusted for a moved .stapsdt.base. */
export interface SdtNote {
  provider: string;
  name: string;
  pc: bigint; // virtual address of the probe's nop
  semaphore: bigint; // virtual address of the u16 semaphore, 0 when there is none
  args: string; // argument specification, e.g. "-4@%edi 8@-16(%rbp)"
  /** Where the pc is stored, as an offset into .note.stapsdt (a relocatable object relocates it). */
  pcAt: number;
}

export class ElfFile {
  readonly type: number;
  readonly machine: number;
  readonly sections: Section[];
  readonly segments: Segment[];
  /** e_entry: where the kernel starts the program (0 when there is none). */
  readonly entry: bigint;
  private tables = new Map<number, FunctionSymbol[]>();

  constructor(readonly data: Buffer, readonly path = '') {
    const d = data;
    if (d.length < 64 || d.readUInt32BE(0) !== 0x7f454c46) throw new ElfError(`${path}: not an ELF file`);
    if (d[4] !== ELFCLASS64 || d[5] !== ELFDATA2LSB) throw new ElfError(`${path}: not a little-endian ELF64 file`);
    this.type = d.readUInt16LE(16);
    this.machine = d.readUInt16LE(18);
    this.entry = d.readBigUInt64LE(24);
    this.segments = readSegments(d, path);
    this.sections = readSections(d, path);
  }

  section(name: string): Section | undefined {
    return this.sections.find((s) => s.name === name);
  }

  /**
   * Defined FUNC symbols of nonzero size, from .symtab when it has any, else from .dynsym, sorted by
   * address (symbol-table order among equal addresses).
   */
  functions(): FunctionSymbol[] {
    const symtab = this.table(SHT_SYMTAB);
    return symtab.length > 0 ? symtab : this.table(SHT_DYNSYM);
  }

  /** The function symbol with this name, from .symtab, else .dynsym. */
  lookupFunction(name: string): FunctionSymbol | undefined {
    return this.table(SHT_SYMTAB).find((f) => f.name === name) ?? this.table(SHT_DYNSYM).find((f) => f.name === name);
  }

  /** The function whose [value, value + size) holds this address, if any. */
  functionAt(vaddr: bigint): FunctionSymbol | undefined {
    return this.functions().find((f) => f.value <= vaddr && vaddr < f.value + f.size);
  }

  /** The file offset at which a virtual address is stored, through the PT_LOAD segments. */
  fileOffset(vaddr: bigint): number | null {
    for (const s of this.segments) {
      if (s.type !== PT_LOAD) continue;
      // Addresses past p_filesz (.bss) still map to file offsets the kernel understands, since the
      // uprobe machinery converts offsets back through the same mapping.
      if (vaddr >= s.vaddr && vaddr < s.vaddr + s.memsz) return Number(vaddr - s.vaddr + s.offset);
    }
    return null;
  }

  /** The program interpreter (PT_INTERP, e.g. /lib64/ld-linux-x86-64.so.2); null if static. */
  interpreter(): string | null {
    const seg = this.segments.find((s) => s.type === PT_INTERP);
    if (!seg) return null;
    const start = Number(seg.offset);
    return cString(this.data, start, Math.min(this.data.length, start + Number(seg.filesz)));
  }

  /** Every SystemTap SDT note in .note.stapsdt. */
  sdtNotes(): SdtNote[] {
    const sec = this.section('.note.stapsdt');
    if (!sec || sec.type !== SHT_NOTE) return [];
    // Prelink may move the object after the notes were written: shift by how far .stapsdt.base moved.
    const base = this.section('.stapsdt.base');
    const out: SdtNote[] = [];
    const d = this.data;
    let off = sec.offset;
    const end = sec.offset + sec.size;
    while (off + 12 <= end) {
      const namesz = d.readUInt32LE(off);
      const descsz = d.readUInt32LE(off + 4);
      const type = d.readUInt32LE(off + 8);
      const nameAt = off + 12;
      const descAt = nameAt + align4(namesz);
      off = descAt + align4(descsz);
      if (off > end) break;
      const owner = d.toString('latin1', nameAt, nameAt + Math.max(0, namesz - 1));
      if (owner !== 'stapsdt' || type !== NT_STAPSDT || descsz < 24) continue;
      let pc = d.readBigUInt64LE(descAt);
      const noteBase = d.readBigUInt64LE(descAt + 8);
      let semaphore = d.readBigUInt64LE(descAt + 16);
      if (base && noteBase !== 0n) {
        const delta = base.addr - noteBase;
        pc += delta;
        if (semaphore !== 0n) semaphore += delta;
      }
      const strings = d.toString('latin1', descAt + 24, descAt + descsz).split('\0');
      out.push({ provider: strings[0] ?? '', name: strings[1] ?? '', pc, semaphore, args: strings[2] ?? '', pcAt: descAt - sec.offset });
    }
    return out;
  }

  /** The GNU build-id (NT_GNU_BUILD_ID note) in hex, or null. */
  buildId(): string | null {
    const d = this.data;
    for (const sec of this.sections) {
      if (sec.type !== SHT_NOTE) continue;
      let off = sec.offset;
      const end = sec.offset + sec.size;
      while (off + 12 <= end) {
        const namesz = d.readUInt32LE(off), descsz = d.readUInt32LE(off + 4), type = d.readUInt32LE(off + 8);
        const nameAt = off + 12, descAt = nameAt + align4(namesz);
        off = descAt + align4(descsz);
        if (off > end) break;
        if (type === NT_GNU_BUILD_ID && namesz === 4 && d.toString('latin1', nameAt, nameAt + 3) === 'GNU') return d.toString('hex', descAt, descAt + descsz);
      }
    }
    return null;
  }

  /** The file name .gnu_debuglink names (a separate debug file's), or null. */
  debugLink(): string | null {
    const sec = this.section('.gnu_debuglink');
    if (!sec || sec.size === 0) return null;
    return cString(this.data, sec.offset, sec.offset + sec.size) || null;
  }

  /**
   * The addresses of an executable's initializers in the order its C library runs them before
   * main(): .init (_init), then .init_array's entries (a position-independent executable's are
   * relocated by their load address, which the linker writes into the section too).
   */
  initializers(): bigint[] {
    const out: bigint[] = [];
    const init = this.section('.init');
    if (init && init.type !== SHT_NOBITS) out.push(init.addr);
    const array = this.section('.init_array');
    if (array && array.type !== SHT_NOBITS) {
      for (let off = array.offset; off + 8 <= array.offset + array.size; off += 8) {
        const at = this.data.readBigUInt64LE(off);
        // 0 and -1 are placeholders (an unrelocated entry, old crtbegin's sentinel), not code.
        if (at !== 0n && at !== 0xffffffffffffffffn) out.push(at);
      }
    }
    return out;
  }

  /** Whether the file has a .symtab with function symbols (not stripped). */
  hasSymtab(): boolean {
    return this.table(SHT_SYMTAB).length > 0;
  }

  /** The stored bytes of a defined data (OBJECT) symbol, from .dynsym or .symtab; undefined if none. */
  objectBytes(name: string): Buffer | undefined {
    const d = this.data;
    for (const type of [SHT_DYNSYM, SHT_SYMTAB]) {
      for (const sec of this.sections) {
        if (sec.type !== type || sec.entsize < 24) continue;
        const strtab = this.sections[sec.link];
        if (!strtab) continue;
        for (let off = sec.offset; off + 24 <= sec.offset + sec.size; off += sec.entsize) {
          if ((d[off + 4] & 0xf) !== STT_OBJECT) continue;
          if (cString(d, strtab.offset + d.readUInt32LE(off), strtab.offset + strtab.size) !== name) continue;
          const shndx = d.readUInt16LE(off + 6);
          if (shndx === SHN_UNDEF) continue; // a reference to another object's symbol
          const home = this.sections[shndx];
          if (!home || home.type === SHT_NOBITS) return undefined;
          const start = home.offset + Number(d.readBigUInt64LE(off + 8) - home.addr);
          const end = start + Number(d.readBigUInt64LE(off + 16));
          return start >= home.offset && end <= home.offset + home.size ? d.subarray(start, end) : undefined;
        }
      }
    }
    return undefined;
  }

  /** Every symbol of .symtab, in table order (as relocations index them). */
  symtab(): RawSymbol[] {
    return this.rawSymbols(SHT_SYMTAB);
  }

  /** The symbols of every symbol table of this type (.symtab or .dynsym), in table order. */
  private rawSymbols(type: number): RawSymbol[] {
    const d = this.data;
    const out: RawSymbol[] = [];
    for (const sec of this.sections) {
      if (sec.type !== type || sec.entsize < 24) continue;
      const strtab = this.sections[sec.link];
      if (!strtab) continue;
      for (let off = sec.offset; off + 24 <= sec.offset + sec.size; off += sec.entsize) {
        out.push({
          name: cString(d, strtab.offset + d.readUInt32LE(off), strtab.offset + strtab.size),
          type: d[off + 4]! & 0xf, bind: d[off + 4]! >> 4, shndx: d.readUInt16LE(off + 6), value: d.readBigUInt64LE(off + 8), size: d.readBigUInt64LE(off + 16),
        });
      }
    }
    return out;
  }

  /** The relocations (SHT_RELA) that apply to section `target`. */
  relocations(target: number): Relocation[] {
    const d = this.data;
    const out: Relocation[] = [];
    for (const sec of this.sections) {
      if (sec.type !== SHT_RELA || sec.info !== target || sec.entsize < 24) continue;
      for (let off = sec.offset; off + 24 <= sec.offset + sec.size; off += sec.entsize) {
        const info = d.readBigUInt64LE(off + 8);
        out.push({ offset: d.readBigUInt64LE(off), type: Number(info & 0xffffffffn), symbol: Number(info >> 32n), addend: d.readBigInt64LE(off + 16) });
      }
    }
    return out;
  }

  /** One symbol table's function symbols, sorted by address (table order among equals). */
  private table(type: number): FunctionSymbol[] {
    let syms = this.tables.get(type);
    if (!syms) {
      syms = this.symbols(type)
        .map((s, i) => ({ s, i }))
        .sort((a, b) => (a.s.value < b.s.value ? -1 : a.s.value > b.s.value ? 1 : preferName(a.s, b.s) || a.i - b.i))
        .map((e) => e.s);
      this.tables.set(type, syms);
    }
    return syms;
  }

  private symbols(type: number): FunctionSymbol[] {
    return this.rawSymbols(type)
      .filter((r) => r.type === STT_FUNC && r.shndx !== SHN_UNDEF && r.size !== 0n && r.name !== '')
      .map((r) => ({ name: r.name, value: r.value, size: r.size, bind: r.bind }));
  }
}

/**
 * Of several names for one address, the one a user knows comes first, as DTrace's symbol lookup
 * prefers it: an unversioned name (a debug file also holds clock_nanosleep@GLIBC_2.2.5), then a
 * global before a weak before a local name, then fewer leading underscores
 * (malloc, not __libc_malloc), then the shorter (free, not cfree).
 */
function preferName(a: FunctionSymbol, b: FunctionSymbol): number {
  const rank = (s: FunctionSymbol) => (s.bind === 1 ? 0 : s.bind === 2 ? 1 : 2);
  const underscores = (s: FunctionSymbol) => /^_*/.exec(s.name)![0].length;
  // A debug file's versioned aliases (clock_nanosleep@GLIBC_2.2.5) come after plain names.
  const versioned = (s: FunctionSymbol) => (s.name.includes('@') ? 1 : 0);
  return versioned(a) - versioned(b) || rank(a) - rank(b) || underscores(a) - underscores(b) || a.name.length - b.name.length;
}

function align4(n: number): number {
  return (n + 3) & ~3;
}

function cString(d: Buffer, start: number, limit: number): string {
  let end = start;
  while (end < limit && d[end] !== 0) end++;
  return d.toString('latin1', start, end);
}

function readSegments(d: Buffer, path: string): Segment[] {
  const phoff = Number(d.readBigUInt64LE(32));
  const phentsize = d.readUInt16LE(54);
  const phnum = d.readUInt16LE(56);
  if (phnum === 0) return [];
  if (phentsize < 56 || phoff + phnum * phentsize > d.length) throw new ElfError(`${path}: bad program headers`);
  const out: Segment[] = [];
  for (let i = 0; i < phnum; i++) {
    const o = phoff + i * phentsize;
    out.push({
      type: d.readUInt32LE(o), flags: d.readUInt32LE(o + 4), offset: d.readBigUInt64LE(o + 8),
      vaddr: d.readBigUInt64LE(o + 16), filesz: d.readBigUInt64LE(o + 32), memsz: d.readBigUInt64LE(o + 40),
    });
  }
  return out;
}

function readSections(d: Buffer, path: string): Section[] {
  const shoff = Number(d.readBigUInt64LE(40));
  const shentsize = d.readUInt16LE(58);
  let shnum = d.readUInt16LE(60);
  let shstrndx = d.readUInt16LE(62);
  if (shoff === 0) return [];
  if (shentsize < 64 || shoff + 64 > d.length) throw new ElfError(`${path}: bad section headers`);
  // Many sections: the real count and string-table index live in section 0.
  if (shnum === 0) shnum = Number(d.readBigUInt64LE(shoff + 32));
  if (shstrndx === SHN_XINDEX) shstrndx = d.readUInt32LE(shoff + 40);
  if (shoff + shnum * shentsize > d.length) throw new ElfError(`${path}: section headers past the end of the file`);
  const raw = [];
  for (let i = 0; i < shnum; i++) {
    const o = shoff + i * shentsize;
    raw.push({
      nameOff: d.readUInt32LE(o), type: d.readUInt32LE(o + 4), flags: d.readBigUInt64LE(o + 8),
      addr: d.readBigUInt64LE(o + 16), offset: Number(d.readBigUInt64LE(o + 24)),
      size: Number(d.readBigUInt64LE(o + 32)), link: d.readUInt32LE(o + 40), info: d.readUInt32LE(o + 44),
      entsize: Number(d.readBigUInt64LE(o + 56)),
    });
  }
  const strs = raw[shstrndx];
  return raw.map((s) => {
    const name = strs ? cString(d, strs.offset + s.nameOff, strs.offset + strs.size) : '';
    // A section whose bytes are not in the file (SHT_NOBITS) or run past it reads as empty.
    const inFile = s.type !== 8 && s.offset + s.size <= d.length;
    return { name, type: s.type, flags: s.flags, addr: s.addr, offset: s.offset, size: inFile ? s.size : 0, link: s.link, info: s.info, entsize: s.entsize };
  });
}

const noteCache = new Map<string, { mtimeMs: number; size: number; has: boolean }>();

/**
 * Does a file hold SystemTap SDT notes (a .note.stapsdt section)? Only its headers and section
 * names are read, so that every program on a system can be asked; false for anything not a
 * regular little-endian ELF64 file.
 */
export function hasSdtNotes(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size < 64) return false;
    const hit = noteCache.get(path);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.has;
    const read = (pos: number, len: number): Buffer => {
      const b = Buffer.alloc(len);
      return b.subarray(0, readSync(fd, b, 0, len, pos));
    };
    const h = read(0, 64);
    let has = false;
    if (h.length === 64 && h.readUInt32BE(0) === 0x7f454c46 && h[4] === ELFCLASS64 && h[5] === ELFDATA2LSB) {
      const shoff = Number(h.readBigUInt64LE(40)), shentsize = h.readUInt16LE(58), shnum = h.readUInt16LE(60), shstrndx = h.readUInt16LE(62);
      if (shoff > 0 && shentsize >= 64 && shnum > 0 && shnum < 0xff00 && shstrndx < shnum && shoff + shnum * shentsize <= st.size) {
        const sh = read(shoff, shnum * shentsize);
        const strOff = Number(sh.readBigUInt64LE(shstrndx * shentsize + 24));
        const strSize = Number(sh.readBigUInt64LE(shstrndx * shentsize + 32));
        const names = read(strOff, Math.min(strSize, 1 << 20));
        for (let i = 0; i < shnum && !has; i++) {
          const o = i * shentsize;
          if (sh.readUInt32LE(o + 4) !== SHT_NOTE) continue;
          has = cString(names, sh.readUInt32LE(o), names.length) === '.note.stapsdt';
        }
      }
    }
    noteCache.set(path, { mtimeMs: st.mtimeMs, size: st.size, has });
    return has;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

const cache = new Map<string, { mtimeMs: number; size: number; elf: ElfFile }>();

/**
 * Read and parse an ELF file, cached by path while its size and mtime stay the same. Only a
 * regular file is read: a path in /proc/PID/maps is one a user controls, and a FIFO or device put
 * in the place of a program must not block dtrace (it is opened without blocking, then refused).
 */
export function readElf(path: string): ElfFile {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new ElfError(`${path}: not a regular file`);
    const hit = cache.get(path);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.elf;
    const elf = new ElfFile(readFileSync(fd), path);
    cache.set(path, { mtimeMs: st.mtimeMs, size: st.size, elf });
    return elf;
  } finally {
    closeSync(fd);
  }
}
