// The DOF writer: encodes a compiled Program as DOF, the form a DTrace kernel takes an enabling in.
//
// Layout: the 64-byte header, the section headers, then each section's data in section order,
// aligned as the section says. Every section is loadable. Section 0 is the program's string table
// (probe description strings, printf formats, aggregation names, option names and values); each DIF
// object brings its own DIF, INTTAB, STRTAB and VARTAB sections behind a DIFOHDR, as libdtrace
// writes them.
//
// How the model's fields that a kernel has no place for are carried (each stays compatible with
// what a DTrace kernel accepts):
// - ProbeDescription.instance (RFD 2): when it is not "host", the PROBEDESC section is 28 bytes,
//   the extra dof_stridx_t naming the instance; a kernel reads only the first 24.
// - printf-like actions (printf, printa, system, freopen) with a format: dofa_strtab is the string
//   table and dofa_arg the format's offset, as DTrace does; the model's arg must then be 0.
// - aggregating actions with a name: dofa_strtab is the string table and dofa_uarg packs the
//   aggregation id (high 32 bits) with the name's offset (low 32 bits); see packAggregationUarg.
// - options: one OPTDESC section of 24-byte entries: dofo_option is the DTRACEOPT_* id (or
//   DOF_OPTION_LIBRARY), dofo_strtab the string table, dofo_value the value string's offset, then
//   the name string's offset. A real kernel refuses option entries that carry strings ("non-zero
//   option string"); on such a host, options must go in separately as integers, as libdtrace's
//   dtrace_getopt_dof() does.

import type { ActionDescription, EcbDescription, ProbeDescription, Program, UsdtProvider } from './program.js';
import type { DifType, Difo } from '../dif/difo.js';
import { DEPENDENCY_CLASS, STABILITY, type Attribute } from '../abi/stability.js';
import { DIF_DIR_NREGS, DIF_DTR_NREGS, DIF_VERSION_2, DTRACEACT_DIFEXPR, isAggregatingAction, isPrintfLikeAction } from '../dif/constants.js';
import {
  DIF_INSTR_SIZE,
  DOF_ACTDESC_SIZE,
  DOF_DIFTYPE_SIZE,
  DOF_DIFV_SIZE,
  DOF_ECBDESC_SIZE,
  DOF_ENCODE_LSB,
  DOF_HDR_SIZE,
  DOF_MAG_MAG0,
  DOF_MAG_MAG1,
  DOF_MAG_MAG2,
  DOF_MAG_MAG3,
  DOF_MODEL_LP64,
  DOF_OPTDESC_NAMED_SIZE,
  DOF_PROBE_SIZE,
  DOF_PROVIDER_SIZE,
  DOF_SECT_PRARGS,
  DOF_SECT_PRENOFFS,
  DOF_SECT_PROBES,
  DOF_SECT_PROFFS,
  DOF_SECT_PROVIDER,
  DOF_VERSION_2,
  dofAttr,
  DOF_PROBEDESC_INSTANCE_SIZE,
  DOF_PROBEDESC_SIZE,
  DOF_SEC_SIZE,
  DOF_SECF_LOAD,
  DOF_SECIDX_NONE,
  DOF_SECT_ACTDESC,
  DOF_SECT_DIF,
  DOF_SECT_DIFOHDR,
  DOF_SECT_ECBDESC,
  DOF_SECT_INTTAB,
  DOF_SECT_OPTDESC,
  DOF_SECT_PROBEDESC,
  DOF_SECT_STRTAB,
  DOF_SECT_VARTAB,
  DOF_VERSION_1,
  optionId,
  packAggregationUarg,
} from './constants.js';

interface Section {
  type: number;
  align: number;
  entsize: number;
  data: Buffer;
}

/** A string table under construction: "" at offset 0, each other string once. */
class StringTable {
  private readonly chunks: Buffer[] = [Buffer.alloc(1)];
  private length = 1;
  private readonly offsets = new Map<string, number>([['', 0]]);
  private emptyNonZero: number | undefined;

  /** Offset of s. With nonZero, "" gets an offset other than 0 (a kernel rejects format offset 0). */
  add(s: string, what: string, nonZero = false): number {
    if (s === '' && nonZero) {
      if (this.emptyNonZero === undefined) this.emptyNonZero = this.append(Buffer.alloc(0));
      return this.emptyNonZero;
    }
    let off = this.offsets.get(s);
    if (off === undefined) {
      const bytes = Buffer.from(s, 'utf8');
      if (bytes.includes(0)) throw new Error(`DOF: ${what} contains a NUL byte: ${JSON.stringify(s)}`);
      off = this.append(bytes);
      this.offsets.set(s, off);
    }
    return off;
  }

  /** Strings laid out one after another (dof_probe_t's argument types): the first one's offset. */
  addRun(strings: string[], what: string): number {
    if (strings.length === 0) return 0;
    const offsets = strings.map((s) => {
      const bytes = Buffer.from(s, 'utf8');
      if (bytes.includes(0)) throw new Error(`DOF: ${what} contains a NUL byte: ${JSON.stringify(s)}`);
      return this.append(bytes);
    });
    return offsets[0]!;
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.chunks, this.length);
  }

  private append(bytes: Buffer): number {
    const off = this.length;
    this.chunks.push(bytes, Buffer.alloc(1));
    this.length += bytes.length + 1;
    return off;
  }
}

function u32(v: number, what: string): number {
  if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) {
    throw new RangeError(`DOF: ${what} ${v} does not fit in 32 bits`);
  }
  return v;
}

function u64(v: bigint): bigint {
  return BigInt.asUintN(64, v);
}

class DofBuilder {
  readonly sections: Section[] = [];
  readonly strings = new StringTable();
  readonly strsec: number;
  /** DOF version 1, or 2 once a provider has is-enabled offsets. */
  private version = DOF_VERSION_1;

  constructor() {
    // Filled in by finish(); section 0 so every structure can name it before it is complete.
    this.strsec = this.add(DOF_SECT_STRTAB, 1, 0, Buffer.alloc(0));
  }

  add(type: number, align: number, entsize: number, data: Buffer): number {
    this.sections.push({ type, align, entsize, data });
    return this.sections.length - 1;
  }

  difo(d: Difo, what: string): number {
    if (d.insns.length === 0) throw new Error(`DOF: ${what} has no DIF instructions`);
    let strtab = Buffer.from(d.strtab);
    if (strtab.length > 0 && strtab[strtab.length - 1] !== 0) {
      throw new Error(`DOF: ${what}: its string table does not end with a NUL byte`);
    }

    const links: number[] = [];
    const text = Buffer.alloc(d.insns.length * DIF_INSTR_SIZE);
    d.insns.forEach((w, i) => text.writeUInt32LE(w >>> 0, i * DIF_INSTR_SIZE));
    links.push(this.add(DOF_SECT_DIF, DIF_INSTR_SIZE, DIF_INSTR_SIZE, text));

    if (d.inttab.length > 0) {
      const ints = Buffer.alloc(d.inttab.length * 8);
      d.inttab.forEach((v, i) => ints.writeBigUInt64LE(u64(v), i * 8));
      links.push(this.add(DOF_SECT_INTTAB, 8, 8, ints));
    }

    // Variable names live in the DIF object's own string table; the model keeps only the name, so
    // find it there (any NUL-terminated occurrence will do) or append it.
    const nameOffsets = d.vartab.map((v) => {
      const bytes = Buffer.from(v.name, 'utf8');
      if (bytes.includes(0)) throw new Error(`DOF: ${what}: variable name contains a NUL byte`);
      const off = findCString(strtab, bytes);
      if (off >= 0) return off;
      const appended = strtab.length;
      strtab = Buffer.concat([strtab, bytes, Buffer.alloc(1)]);
      return appended;
    });

    if (strtab.length > 0) links.push(this.add(DOF_SECT_STRTAB, 1, 0, strtab));

    if (d.vartab.length > 0) {
      const vars = Buffer.alloc(d.vartab.length * DOF_DIFV_SIZE);
      d.vartab.forEach((v, i) => {
        const o = i * DOF_DIFV_SIZE;
        vars.writeUInt32LE(nameOffsets[i]!, o);
        vars.writeUInt32LE(u32(v.id, `${what}: variable id`), o + 4);
        vars.writeUInt8(byte(v.kind, 'variable kind'), o + 8);
        vars.writeUInt8(byte(v.scope, 'variable scope'), o + 9);
        vars.writeUInt16LE(half(v.flags, 'variable flags'), o + 10);
        writeDifType(vars, o + 12, v.type);
      });
      links.push(this.add(DOF_SECT_VARTAB, 4, DOF_DIFV_SIZE, vars));
    }

    const hdr = Buffer.alloc(DOF_DIFTYPE_SIZE + 4 * links.length);
    writeDifType(hdr, 0, d.rtype);
    links.forEach((s, i) => hdr.writeUInt32LE(s, DOF_DIFTYPE_SIZE + 4 * i));
    return this.add(DOF_SECT_DIFOHDR, 4, 0, hdr);
  }

  probe(p: ProbeDescription): number {
    const withInstance = p.instance !== 'host';
    const data = Buffer.alloc(withInstance ? DOF_PROBEDESC_INSTANCE_SIZE : DOF_PROBEDESC_SIZE);
    data.writeUInt32LE(this.strsec, 0);
    data.writeUInt32LE(this.strings.add(p.provider, 'probe provider'), 4);
    data.writeUInt32LE(this.strings.add(p.module, 'probe module'), 8);
    data.writeUInt32LE(this.strings.add(p.function, 'probe function'), 12);
    data.writeUInt32LE(this.strings.add(p.name, 'probe name'), 16);
    data.writeUInt32LE(u32(p.id, 'probe id'), 20);
    if (withInstance) data.writeUInt32LE(this.strings.add(p.instance, 'probe instance'), 24);
    return this.add(DOF_SECT_PROBEDESC, 4, data.length, data);
  }

  actions(actions: ActionDescription[], where: string): number {
    if (actions.length === 0) return DOF_SECIDX_NONE;
    const data = Buffer.alloc(actions.length * DOF_ACTDESC_SIZE);
    actions.forEach((a, i) => {
      const what = `${where}, action ${i}`;
      const o = i * DOF_ACTDESC_SIZE;
      let strtab = DOF_SECIDX_NONE;
      let arg = a.arg;
      let uarg = a.uarg;
      if (a.format !== undefined) {
        // print() carries its value's type as a DIF expression's format, as libdtrace does.
        if (!isPrintfLikeAction(a.kind) && a.kind !== DTRACEACT_DIFEXPR) {
          throw new Error(`DOF: ${what}: action kind 0x${a.kind.toString(16)} takes no format string`);
        }
        if (a.arg !== 0n) {
          throw new Error(`DOF: ${what}: a printf-like action's arg must be 0 (DOF puts the format there)`);
        }
        strtab = this.strsec;
        arg = BigInt(this.strings.add(a.format, 'format string', true));
      }
      if (a.aggName !== undefined) {
        if (!isAggregatingAction(a.kind)) {
          throw new Error(`DOF: ${what}: action kind 0x${a.kind.toString(16)} is not an aggregating action`);
        }
        strtab = this.strsec;
        uarg = packAggregationUarg(a.uarg, this.strings.add(a.aggName, 'aggregation name'));
      }
      const difo = a.difo ? this.difo(a.difo, what) : DOF_SECIDX_NONE;
      data.writeUInt32LE(difo, o);
      data.writeUInt32LE(strtab, o + 4);
      data.writeUInt32LE(u32(a.kind, `${what}: kind`), o + 8);
      data.writeUInt32LE(u32(a.ntuple, `${what}: ntuple`), o + 12);
      data.writeBigUInt64LE(u64(arg), o + 16);
      data.writeBigUInt64LE(u64(uarg), o + 24);
    });
    return this.add(DOF_SECT_ACTDESC, 8, DOF_ACTDESC_SIZE, data);
  }

  ecb(e: EcbDescription, index: number): number {
    const where = `ECB ${index}`;
    const probes = this.probe(e.probe);
    const pred = e.predicate ? this.difo(e.predicate, `${where} predicate`) : DOF_SECIDX_NONE;
    const acts = this.actions(e.actions, where);
    const data = Buffer.alloc(DOF_ECBDESC_SIZE);
    data.writeUInt32LE(probes, 0);
    data.writeUInt32LE(pred, 4);
    data.writeUInt32LE(acts, 8);
    data.writeUInt32LE(0, 12);
    data.writeBigUInt64LE(u64(e.uarg), 16);
    return this.add(DOF_SECT_ECBDESC, 8, 0, data);
  }

  options(options: Map<string, string>): void {
    if (options.size === 0) return;
    const data = Buffer.alloc(options.size * DOF_OPTDESC_NAMED_SIZE);
    let o = 0;
    for (const [name, value] of options) {
      data.writeUInt32LE(optionId(name), o);
      data.writeUInt32LE(this.strsec, o + 4);
      data.writeBigUInt64LE(BigInt(this.strings.add(value, `option ${name} value`)), o + 8);
      data.writeUInt32LE(this.strings.add(name, 'option name'), o + 16);
      o += DOF_OPTDESC_NAMED_SIZE;
    }
    this.add(DOF_SECT_OPTDESC, 8, DOF_OPTDESC_NAMED_SIZE, data);
  }

  /**
   * A USDT provider as libdtrace's dof_add_provider() lays it out: its own string table, its
   * probes, their argument mappings, probe offsets and is-enabled offsets, and the provider.
   */
  provider(p: UsdtProvider): void {
    const where = `provider ${p.name}`;
    const strings = new StringTable();
    const probes = Buffer.alloc(p.probes.length * DOF_PROBE_SIZE);
    const args: number[] = [];
    const offs: number[] = [];
    const enoffs: number[] = [];
    p.probes.forEach((pr, i) => {
      const what = `${where}, probe ${pr.name}`;
      if (pr.offsets.length + pr.enabledOffsets.length === 0) throw new Error(`DOF: ${what} has no probe sites`);
      if (pr.argMap.length !== pr.translatedTypes.length) throw new Error(`DOF: ${what}: one argument mapping is needed for each translated argument`);
      if (pr.argMap.some((a) => a >= pr.nativeTypes.length)) throw new Error(`DOF: ${what}: an argument mapping names a native argument it does not have`);
      const o = i * DOF_PROBE_SIZE;
      probes.writeBigUInt64LE(u64(pr.addr), o);
      probes.writeUInt32LE(strings.add(pr.func, `${what}: function`), o + 8);
      probes.writeUInt32LE(strings.add(pr.name, `${what}: name`), o + 12);
      probes.writeUInt32LE(strings.addRun(pr.nativeTypes, `${what}: native type`), o + 16);
      probes.writeUInt32LE(strings.addRun(pr.translatedTypes, `${what}: translated type`), o + 20);
      probes.writeUInt32LE(args.length, o + 24);
      probes.writeUInt32LE(offs.length, o + 28);
      probes.writeUInt8(byte(pr.nativeTypes.length, `${what}: native argument count`), o + 32);
      probes.writeUInt8(byte(pr.translatedTypes.length, `${what}: translated argument count`), o + 33);
      probes.writeUInt16LE(half(pr.offsets.length, `${what}: probe offsets`), o + 34);
      probes.writeUInt32LE(enoffs.length, o + 36);
      probes.writeUInt16LE(half(pr.enabledOffsets.length, `${what}: is-enabled offsets`), o + 40);
      args.push(...pr.argMap);
      offs.push(...pr.offsets);
      enoffs.push(...pr.enabledOffsets);
    });
    const name = strings.add(p.name, `${where}: name`);
    const strtab = this.add(DOF_SECT_STRTAB, 1, 0, strings.toBuffer());
    const probesec = this.add(DOF_SECT_PROBES, 8, DOF_PROBE_SIZE, probes);
    const argsec = this.add(DOF_SECT_PRARGS, 1, 1, Buffer.from(args.map((a) => byte(a, `${where}: argument mapping`))));
    const words = (xs: number[]) => {
      const b = Buffer.alloc(xs.length * 4);
      xs.forEach((x, i) => b.writeUInt32LE(u32(x, `${where}: probe offset`), i * 4));
      return b;
    };
    const offsec = this.add(DOF_SECT_PROFFS, 4, 4, words(offs));
    const enoffsec = enoffs.length > 0 ? this.add(DOF_SECT_PRENOFFS, 4, 4, words(enoffs)) : DOF_SECIDX_NONE;
    if (enoffs.length > 0) this.version = DOF_VERSION_2;
    const hdr = Buffer.alloc(DOF_PROVIDER_SIZE);
    [strtab, probesec, argsec, offsec, name].forEach((v, i) => hdr.writeUInt32LE(v, i * 4));
    const a = p.attributes;
    [a.provider, a.module, a.function, a.name, a.args].forEach((x, i) => hdr.writeUInt32LE(attrWord(x), 20 + i * 4));
    hdr.writeUInt32LE(enoffsec, 40);
    this.add(DOF_SECT_PROVIDER, 4, 0, hdr);
  }

  finish(): Buffer {
    this.sections[this.strsec]!.data = this.strings.toBuffer();
    const n = this.sections.length;
    let cursor = DOF_HDR_SIZE + n * DOF_SEC_SIZE;
    const offsets = this.sections.map((s) => {
      cursor = alignUp(cursor, s.align);
      const off = cursor;
      cursor += s.data.length;
      return off;
    });
    const size = cursor;
    const out = Buffer.alloc(size);

    out[0] = DOF_MAG_MAG0;
    out[1] = DOF_MAG_MAG1;
    out[2] = DOF_MAG_MAG2;
    out[3] = DOF_MAG_MAG3;
    out[4] = DOF_MODEL_LP64;
    out[5] = DOF_ENCODE_LSB;
    out[6] = this.version; // version 2 only adds is-enabled offsets for USDT providers
    out[7] = DIF_VERSION_2;
    out[8] = DIF_DIR_NREGS;
    out[9] = DIF_DTR_NREGS;
    out.writeUInt32LE(0, 16); // dofh_flags
    out.writeUInt32LE(DOF_HDR_SIZE, 20);
    out.writeUInt32LE(DOF_SEC_SIZE, 24);
    out.writeUInt32LE(n, 28);
    out.writeBigUInt64LE(BigInt(DOF_HDR_SIZE), 32); // dofh_secoff
    out.writeBigUInt64LE(BigInt(size), 40); // dofh_loadsz
    out.writeBigUInt64LE(BigInt(size), 48); // dofh_filesz

    this.sections.forEach((s, i) => {
      const h = DOF_HDR_SIZE + i * DOF_SEC_SIZE;
      out.writeUInt32LE(s.type, h);
      out.writeUInt32LE(s.align, h + 4);
      out.writeUInt32LE(DOF_SECF_LOAD, h + 8);
      out.writeUInt32LE(s.entsize, h + 12);
      out.writeBigUInt64LE(BigInt(offsets[i]!), h + 16);
      out.writeBigUInt64LE(BigInt(s.data.length), h + 24);
      s.data.copy(out, offsets[i]!);
    });
    return out;
  }
}

/** Encode a program as DOF. Throws an Error naming the ECB and action when the model cannot be encoded. */
export function writeDof(program: Program): Buffer {
  const b = new DofBuilder();
  program.ecbs.forEach((e, i) => b.ecb(e, i));
  b.options(program.options);
  for (const p of program.providers ?? []) b.provider(p);
  return b.finish();
}

function attrWord(a: Attribute): number {
  return dofAttr(STABILITY.indexOf(a.name), STABILITY.indexOf(a.data), DEPENDENCY_CLASS.indexOf(a.dependency));
}

function writeDifType(buf: Buffer, off: number, t: DifType): void {
  buf.writeUInt8(byte(t.kind, 'type kind'), off);
  buf.writeUInt8(byte(t.ckind, 'CTF kind'), off + 1);
  buf.writeUInt8(byte(t.flags, 'type flags'), off + 2);
  buf.writeUInt8(0, off + 3);
  buf.writeUInt32LE(u32(t.size, 'type size'), off + 4);
}

function byte(v: number, what: string): number {
  if (!Number.isInteger(v) || v < 0 || v > 0xff) throw new RangeError(`DOF: ${what} ${v} does not fit in 8 bits`);
  return v;
}

function half(v: number, what: string): number {
  if (!Number.isInteger(v) || v < 0 || v > 0xffff) throw new RangeError(`DOF: ${what} ${v} does not fit in 16 bits`);
  return v;
}

function alignUp(n: number, align: number): number {
  return align <= 1 ? n : Math.ceil(n / align) * align;
}

/** Offset of a NUL-terminated occurrence of bytes in a string table, or -1. */
function findCString(tab: Buffer, bytes: Buffer): number {
  let from = 0;
  for (;;) {
    const at = tab.indexOf(bytes, from);
    if (at < 0 || at >= tab.length) return -1;
    if (tab[at + bytes.length] === 0) return at;
    from = at + 1;
  }
}
