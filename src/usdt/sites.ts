// dtrace -G: where a program's USDT probes are, read from the relocatable objects it names. The
// header's macros leave an SDT note (.note.stapsdt) at each probe site; in an object not yet linked
// the note's pc is a relocation against the section holding the site's nop, so the site is that
// section plus the relocation's addend, which DOF describes as an offset into the function around
// it (dof_probe_t's dofpr_func and its offsets, as DTrace's -G records a call site).

import { readFileSync } from 'node:fs';
import { ElfError, ElfFile, ET_REL } from '../sys/elf.js';

const STT_FUNC = 2;
const R_X86_64_64 = 1;

/** One probe site: the provider and the probe's C name as the note records them. */
export interface ProbeSite {
  provider: string;
  cName: string;
  func: string;
  offset: number; // from the start of func
}

/** The probe sites of a relocatable object; other ELF files (already linked) have none to give. */
export function probeSites(path: string): ProbeSite[] {
  let elf: ElfFile;
  try {
    elf = new ElfFile(readFileSync(path), path);
  } catch (e) {
    if (e instanceof ElfError) return [];
    throw e;
  }
  const notes = elf.sections.findIndex((s) => s.name === '.note.stapsdt');
  if (elf.type !== ET_REL || notes < 0) return [];
  const symbols = elf.symtab();
  const relocs = new Map(elf.relocations(notes).filter((r) => r.type === R_X86_64_64).map((r) => [Number(r.offset), r]));
  const sites: ProbeSite[] = [];
  for (const note of elf.sdtNotes()) {
    const r = relocs.get(note.pcAt);
    const target = r && symbols[r.symbol];
    if (!r || !target) continue;
    const where = target.value + r.addend; // within section target.shndx
    const func = symbols.find((s) => s.type === STT_FUNC && s.shndx === target.shndx && s.value <= where && where < s.value + s.size);
    if (!func) continue;
    sites.push({ provider: note.provider, cName: note.name, func: func.name, offset: Number(where - func.value) });
  }
  return sites;
}
