// dtrace -G: the object file a program with USDT probes links.
//
// With SDT notes the probe sites need no rewriting (DTrace on Solaris rewrote calls into nops);
// what the program still needs is a definition of each probe's semaphore, the u16 its header's
// _ENABLED() macro reads and the kernel raises while the probe is traced. This writes an x86_64 ELF
// relocatable object holding them, zeroed, in a writable ".probes" section, each a hidden global
// symbol named as the header names it -- the object SystemTap's dtrace -G writes on Linux. When the
// objects named to -G hold probe sites, it also carries the providers' DOF (their probes, argument
// types and sites) in a .SUNW_dof section, as DTrace's -G does.

import { semaphoreName, type DeclaredProvider } from './header.js';

const SHT_PROGBITS = 1;
const SHT_SYMTAB = 2;
const SHT_STRTAB = 3;
const SHT_SUNW_DOF = 0x6ffffff4;
const SHF_WRITE = 0x1;
const SHF_ALLOC = 0x2;
const STB_LOCAL = 0;
const STB_GLOBAL = 1;
const STT_OBJECT = 1;
const STT_SECTION = 3;
const STV_HIDDEN = 2;
const EM_X86_64 = 62;
const ET_REL = 1;

interface SectionSpec {
  name: string;
  type: number;
  flags: number;
  data: Buffer;
  link?: number;
  info?: number;
  align: number;
  entsize?: number;
}

/** A string table: NUL first, then each string once. */
class StringTable {
  private readonly parts: string[] = [''];
  private readonly at = new Map<string, number>([['', 0]]);
  private size = 1;
  add(s: string): number {
    const hit = this.at.get(s);
    if (hit !== undefined) return hit;
    const off = this.size;
    this.at.set(s, off);
    this.parts.push(s);
    this.size += Buffer.byteLength(s) + 1;
    return off;
  }
  bytes(): Buffer {
    return Buffer.from(this.parts.join('\0') + '\0');
  }
}

/** The semaphores of these providers' probes, in order, each once. */
export function semaphores(providers: DeclaredProvider[]): string[] {
  const names = providers.flatMap((p) => p.probes.map((probe) => semaphoreName(p.name, probe.cName)));
  return [...new Set(names)];
}

/**
 * An ELF64 x86_64 relocatable object defining every semaphore of these providers and, given the
 * providers' DOF (their probes and sites), holding it in a .SUNW_dof section with the symbol
 * ___SUNW_dof, where DTrace's -G puts it.
 */
export function semaphoreObject(providers: DeclaredProvider[], dof?: Buffer): Buffer {
  const names = semaphores(providers);
  const strtab = new StringTable();
  // Section indexes (0 is the null section): .probes, then .SUNW_dof when there is one.
  const PROBES_INDEX = 1;
  const DOF_INDEX = 2;
  // Symbols: the null symbol, the section symbols, ___SUNW_dof, then the semaphores (globals last).
  const symbols: Buffer[] = [symbol(0, 0, 0, 0, 0, 0), symbol(0, (STB_LOCAL << 4) | STT_SECTION, 0, PROBES_INDEX, 0, 0)];
  if (dof) symbols.push(symbol(strtab.add('___SUNW_dof'), (STB_LOCAL << 4) | STT_OBJECT, 0, DOF_INDEX, 0, dof.length));
  const firstGlobal = symbols.length;
  names.forEach((name, i) => {
    symbols.push(symbol(strtab.add(name), (STB_GLOBAL << 4) | STT_OBJECT, STV_HIDDEN, PROBES_INDEX, 2 * i, 2));
  });
  const sections: SectionSpec[] = [
    { name: '.probes', type: SHT_PROGBITS, flags: SHF_WRITE | SHF_ALLOC, data: Buffer.alloc(2 * names.length), align: 2 },
    ...(dof ? [{ name: '.SUNW_dof', type: SHT_SUNW_DOF, flags: SHF_ALLOC, data: dof, align: 8 }] : []),
    // No executable stack needed (without this the linker warns and may make the stack executable).
    { name: '.note.GNU-stack', type: SHT_PROGBITS, flags: 0, data: Buffer.alloc(0), align: 1 },
  ];
  const symtabIndex = sections.length + 1;
  sections.push(
    { name: '.symtab', type: SHT_SYMTAB, flags: 0, data: Buffer.concat(symbols), link: symtabIndex + 1, info: firstGlobal, align: 8, entsize: 24 },
    { name: '.strtab', type: SHT_STRTAB, flags: 0, data: strtab.bytes(), align: 1 },
    { name: '.shstrtab', type: SHT_STRTAB, flags: 0, data: Buffer.alloc(0), align: 1 },
  );
  const shstrtab = new StringTable();
  const nameOffsets = sections.map((s) => shstrtab.add(s.name));
  sections[sections.length - 1].data = shstrtab.bytes();
  return layout(sections, nameOffsets);
}

/** Elf64_Sym. */
function symbol(name: number, info: number, other: number, shndx: number, value: number, size: number): Buffer {
  const b = Buffer.alloc(24);
  b.writeUInt32LE(name, 0);
  b[4] = info;
  b[5] = other;
  b.writeUInt16LE(shndx, 6);
  b.writeBigUInt64LE(BigInt(value), 8);
  b.writeBigUInt64LE(BigInt(size), 16);
  return b;
}

/** The ELF header, the sections' data in order, then the section header table. */
function layout(sections: SectionSpec[], nameOffsets: number[]): Buffer {
  const EHDR = 64;
  const SHDR = 64;
  const chunks: Buffer[] = [];
  let offset = EHDR;
  const offsets: number[] = [];
  for (const s of sections) {
    const pad = (s.align - (offset % s.align)) % s.align;
    if (pad) chunks.push(Buffer.alloc(pad));
    offset += pad;
    offsets.push(offset);
    chunks.push(s.data);
    offset += s.data.length;
  }
  const pad = (8 - (offset % 8)) % 8;
  if (pad) chunks.push(Buffer.alloc(pad));
  const shoff = offset + pad;
  const shdrs = Buffer.alloc(SHDR * (sections.length + 1)); // entry 0 is the null section
  sections.forEach((s, i) => {
    const o = SHDR * (i + 1);
    shdrs.writeUInt32LE(nameOffsets[i], o);
    shdrs.writeUInt32LE(s.type, o + 4);
    shdrs.writeBigUInt64LE(BigInt(s.flags), o + 8);
    shdrs.writeBigUInt64LE(BigInt(offsets[i]), o + 24);
    shdrs.writeBigUInt64LE(BigInt(s.data.length), o + 32);
    shdrs.writeUInt32LE(s.link ?? 0, o + 40);
    shdrs.writeUInt32LE(s.info ?? 0, o + 44);
    shdrs.writeBigUInt64LE(BigInt(s.align), o + 48);
    shdrs.writeBigUInt64LE(BigInt(s.entsize ?? 0), o + 56);
  });
  const ehdr = Buffer.alloc(EHDR);
  ehdr.write('\x7fELF', 0, 'latin1');
  ehdr[4] = 2; // ELFCLASS64
  ehdr[5] = 1; // little-endian
  ehdr[6] = 1; // EV_CURRENT
  ehdr.writeUInt16LE(ET_REL, 16);
  ehdr.writeUInt16LE(EM_X86_64, 18);
  ehdr.writeUInt32LE(1, 20);
  ehdr.writeBigUInt64LE(BigInt(shoff), 40);
  ehdr.writeUInt16LE(EHDR, 52);
  ehdr.writeUInt16LE(SHDR, 58);
  ehdr.writeUInt16LE(sections.length + 1, 60);
  ehdr.writeUInt16LE(sections.length, 62); // .shstrtab is last
  return Buffer.concat([ehdr, ...chunks, shdrs]);
}
