// The DOF reader: decodes DOF into a Program, checking it the way a DTrace kernel does before it
// enables anything (header identity, sizes, section bounds and alignment, string table offsets,
// section links and their types, DIF object structure, and each DIF instruction's operands).
//
// Malformed input of any kind ends in an Error whose message starts with "DOF: "; the reader never
// indexes outside the buffer and every loop is bounded by the input's size. It reads what
// writer.ts writes (see there for how the model's extra fields are carried), and DOF from libdtrace.

import type { ActionDescription, EcbDescription, ProbeDescription, Program, UsdtProbe, UsdtProvider } from './program.js';
import type { DifType, DifVar, Difo } from '../dif/difo.js';
import { DEPENDENCY_CLASS, STABILITY, type Attribute } from '../abi/stability.js';
import * as D from '../dif/constants.js';
import { validateDifo } from '../dif/validate.js';
import {
  DIF_INSTR_SIZE,
  DOF_ACTDESC_SIZE,
  DOF_DIFOHDR_SIZE,
  DOF_DIFTYPE_SIZE,
  DOF_DIFV_SIZE,
  DOF_ECBDESC_SIZE,
  DOF_ENCODE_LSB,
  DOF_FL_VALID,
  DOF_HDR_SIZE,
  DOF_ID_DIFIREG,
  DOF_ID_DIFTREG,
  DOF_ID_DIFVERS,
  DOF_ID_ENCODING,
  DOF_ID_MODEL,
  DOF_ID_PAD,
  DOF_ID_SIZE,
  DOF_ID_VERSION,
  DOF_MAG_MAG0,
  DOF_MAG_MAG1,
  DOF_MAG_MAG2,
  DOF_MAG_MAG3,
  DOF_MODEL_LP64,
  DOF_OPTDESC_NAMED_SIZE,
  DOF_OPTDESC_SIZE,
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
  DOF_PROBE_SIZE,
  DOF_PROVIDER_SIZE,
  DOF_PROVIDER_V1_SIZE,
  DOF_SECT_PRARGS,
  DOF_SECT_PRENOFFS,
  DOF_SECT_PROBES,
  DOF_SECT_PROFFS,
  DOF_SECT_PROVIDER,
  DOF_VERSION_1,
  DOF_VERSION_2,
  DTRACEOPT_NAMES,
  sectionTypeName,
  unpackAggregationUarg,
} from './constants.js';

interface Section {
  index: number;
  type: number;
  align: number;
  flags: number;
  entsize: number;
  offset: number;
  size: number;
}

// Strings are UTF-8, as the writer encodes them; anything else could not be written back unchanged.
const UTF8 = new TextDecoder('utf-8', { fatal: true });

function fail(msg: string): never {
  throw new Error(`DOF: ${msg}`);
}

/** A u64 file offset or size as a number, refusing values no file here can have. */
function safe(v: bigint, what: string): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) fail(`${what} ${v} is impossibly large`);
  return Number(v);
}

class DofReader {
  private readonly sections: Section[] = [];
  private readonly loadsz: number;
  private readonly version: number;

  constructor(private readonly buf: Buffer) {
    if (buf.length < DOF_HDR_SIZE) {
      fail(`file is ${buf.length} bytes, too short for the ${DOF_HDR_SIZE}-byte header`);
    }
    if (buf[0] !== DOF_MAG_MAG0 || buf[1] !== DOF_MAG_MAG1 || buf[2] !== DOF_MAG_MAG2 || buf[3] !== DOF_MAG_MAG3) {
      fail('bad magic number: this is not DOF');
    }
    const model = buf[DOF_ID_MODEL]!;
    if (model !== DOF_MODEL_LP64) fail(`data model ${model} is not LP64 (${DOF_MODEL_LP64})`);
    const encoding = buf[DOF_ID_ENCODING]!;
    if (encoding !== DOF_ENCODE_LSB) fail(`encoding ${encoding} is not little-endian (${DOF_ENCODE_LSB})`);
    const version = buf[DOF_ID_VERSION]!;
    if (version !== DOF_VERSION_1 && version !== DOF_VERSION_2) fail(`DOF version ${version} is not supported`);
    const difvers = buf[DOF_ID_DIFVERS]!;
    if (difvers !== D.DIF_VERSION_2) fail(`DIF version ${difvers} is not supported`);
    if (buf[DOF_ID_DIFIREG]! > D.DIF_DIR_NREGS) {
      fail(`DIF uses ${buf[DOF_ID_DIFIREG]} integer registers; there are ${D.DIF_DIR_NREGS}`);
    }
    if (buf[DOF_ID_DIFTREG]! > D.DIF_DTR_NREGS) {
      fail(`DIF uses ${buf[DOF_ID_DIFTREG]} tuple registers; there are ${D.DIF_DTR_NREGS}`);
    }
    for (let i = DOF_ID_PAD; i < DOF_ID_SIZE; i++) {
      if (buf[i] !== 0) fail(`identification byte ${i} is not zero`);
    }
    const flags = buf.readUInt32LE(16);
    if (flags & ~DOF_FL_VALID) fail(`unknown header flags 0x${flags.toString(16)}`);
    const hdrsize = buf.readUInt32LE(20);
    if (hdrsize < DOF_HDR_SIZE) fail(`header size ${hdrsize} is less than ${DOF_HDR_SIZE}`);
    const secsize = buf.readUInt32LE(24);
    if (secsize !== DOF_SEC_SIZE) fail(`section header size ${secsize} is not ${DOF_SEC_SIZE}`);
    const secnum = buf.readUInt32LE(28);
    const secoff = safe(buf.readBigUInt64LE(32), 'section header offset');
    const loadsz = safe(buf.readBigUInt64LE(40), 'loadable size');
    const filesz = safe(buf.readBigUInt64LE(48), 'file size');
    if (filesz > buf.length) fail(`file is truncated: the header says ${filesz} bytes but there are ${buf.length}`);
    if (loadsz > filesz) fail(`loadable size ${loadsz} exceeds the file size ${filesz}`);
    if (secoff % 8 !== 0) fail(`section headers at offset ${secoff} are not 8-byte aligned`);
    if (secoff < hdrsize) fail(`section headers at offset ${secoff} overlap the header`);
    if (secoff + secnum * secsize > loadsz) fail(`${secnum} section headers extend past the loadable data`);
    this.loadsz = loadsz;
    this.version = version;

    for (let i = 0; i < secnum; i++) {
      const h = secoff + i * secsize;
      const s: Section = {
        index: i,
        type: buf.readUInt32LE(h),
        align: buf.readUInt32LE(h + 4),
        flags: buf.readUInt32LE(h + 8),
        entsize: buf.readUInt32LE(h + 12),
        offset: safe(buf.readBigUInt64LE(h + 16), `section ${i} offset`),
        size: safe(buf.readBigUInt64LE(h + 24), `section ${i} size`),
      };
      const limit = s.flags & DOF_SECF_LOAD ? loadsz : filesz;
      if (s.offset > limit || s.size > limit || s.offset + s.size > limit) {
        fail(
          `section ${i} (${sectionTypeName(s.type)}) extends past end of ` +
            (s.flags & DOF_SECF_LOAD ? 'loadable data' : 'file'),
        );
      }
      if (s.flags & DOF_SECF_LOAD) {
        if (s.align === 0 || (s.align & (s.align - 1)) !== 0) {
          fail(`section ${i} (${sectionTypeName(s.type)}) has alignment ${s.align}, not a power of two`);
        }
        if (s.offset % s.align !== 0) {
          fail(`section ${i} (${sectionTypeName(s.type)}) at offset ${s.offset} is not ${s.align}-byte aligned`);
        }
        if (s.type === DOF_SECT_STRTAB) {
          if (s.size === 0) fail(`section ${i} is an empty string table`);
          if (buf[s.offset + s.size - 1] !== 0) fail(`section ${i}: string table is not NUL-terminated`);
        }
      }
      this.sections.push(s);
    }
  }

  read(): Program {
    const ecbs: EcbDescription[] = [];
    const options = new Map<string, string>();
    const providers: UsdtProvider[] = [];
    for (const s of this.sections) {
      if (!(s.flags & DOF_SECF_LOAD)) continue;
      if (s.type === DOF_SECT_ECBDESC) ecbs.push(this.ecb(s));
      else if (s.type === DOF_SECT_OPTDESC) this.options(s, options);
      else if (s.type === DOF_SECT_PROVIDER) providers.push(this.provider(s));
    }
    return providers.length > 0 ? { ecbs, options, providers } : { ecbs, options };
  }

  /** A USDT provider, checked as the kernel's dtrace_helper_provider_validate() checks it. */
  private provider(s: Section): UsdtProvider {
    const where = `provider in section ${s.index}`;
    const size = this.version === DOF_VERSION_1 ? DOF_PROVIDER_V1_SIZE : DOF_PROVIDER_SIZE;
    this.expect(s, 4, size, 'PROVIDER');
    const o = s.offset;
    const word = (k: number) => this.buf.readUInt32LE(o + 4 * k);
    const strtab = this.link(word(0), DOF_SECT_STRTAB, where);
    const probes = this.link(word(1), DOF_SECT_PROBES, where);
    const args = this.link(word(2), DOF_SECT_PRARGS, where);
    const offs = this.link(word(3), DOF_SECT_PROFFS, where);
    const name = this.string(strtab, word(4), `${where}, name`);
    if (name === '' || name.length >= 64) fail(`${where}: invalid provider name "${name}"`);
    const attributes = {
      provider: this.attr(word(5), where), module: this.attr(word(6), where), function: this.attr(word(7), where),
      name: this.attr(word(8), where), args: this.attr(word(9), where),
    };
    const enoffsec = size === DOF_PROVIDER_SIZE ? word(10) : DOF_SECIDX_NONE;
    const enoffs = enoffsec === DOF_SECIDX_NONE ? null : this.link(enoffsec, DOF_SECT_PRENOFFS, where);
    if (probes.entsize < DOF_PROBE_SIZE) fail(`${where}: probe entry size ${probes.entsize} is less than ${DOF_PROBE_SIZE}`);
    for (const [sec, what, align] of [[offs, 'PROFFS', 4], [enoffs, 'PRENOFFS', 4], [args, 'PRARGS', 1]] as const) {
      if (sec === null) continue;
      this.expect(sec, align, 0, what);
      if (sec.entsize !== align) fail(`${where}: ${what} entry size ${sec.entsize} is not ${align}`);
    }
    const list: UsdtProbe[] = [];
    for (let off = 0; off + DOF_PROBE_SIZE <= probes.size; off += probes.entsize) {
      list.push(this.usdtProbe(probes.offset + off, `probe ${off / probes.entsize} of ${where}`, strtab, args, offs, enoffs));
    }
    return { name, attributes, probes: list };
  }

  private usdtProbe(o: number, where: string, strtab: Section, args: Section, offs: Section, enoffs: Section | null): UsdtProbe {
    const b = this.buf;
    const func = this.string(strtab, b.readUInt32LE(o + 8), `${where}, function`);
    const name = this.string(strtab, b.readUInt32LE(o + 12), `${where}, name`);
    if (func === '' || name === '') fail(`${where}: invalid function or name`);
    const nargc = b[o + 32]!, xargc = b[o + 33]!;
    const argidx = b.readUInt32LE(o + 24), offidx = b.readUInt32LE(o + 28), noffs = b.readUInt16LE(o + 34);
    const enoffidx = b.readUInt32LE(o + 36), nenoffs = b.readUInt16LE(o + 40);
    if (noffs + nenoffs === 0) fail(`${where}: zero probe and is-enabled offsets`);
    const words = (sec: Section | null, idx: number, n: number, what: string): number[] => {
      if (n === 0) return [];
      if (sec === null || idx + n > sec.size / 4) fail(`${where}: invalid ${what}`);
      return Array.from({ length: n }, (_, k) => b.readUInt32LE(sec.offset + 4 * (idx + k)));
    };
    const offsets = words(offs, offidx, noffs, 'probe offset');
    const enabledOffsets = words(enoffs, enoffidx, nenoffs, 'is-enabled offset');
    if (argidx + xargc > args.size) fail(`${where}: invalid args`);
    const argMap = Array.from({ length: xargc }, (_, k) => b[args.offset + argidx + k]!);
    if (argMap.some((a) => a >= nargc)) fail(`${where}: argument mapping names a native argument it does not have`);
    return {
      func, name, addr: b.readBigUInt64LE(o),
      nativeTypes: this.stringRun(strtab, b.readUInt32LE(o + 16), nargc, `${where}, native types`),
      translatedTypes: this.stringRun(strtab, b.readUInt32LE(o + 20), xargc, `${where}, translated types`),
      argMap, offsets, enabledOffsets,
    };
  }

  /** `n` strings laid out one after another from offset `off`. */
  private stringRun(strtab: Section, off: number, n: number, what: string): string[] {
    const out: string[] = [];
    for (let k = 0; k < n; k++) {
      const s = this.string(strtab, off, what);
      out.push(s);
      off += Buffer.byteLength(s) + 1;
    }
    return out;
  }

  private attr(w: number, where: string): Attribute {
    const name = STABILITY[(w >>> 24) & 0xff], data = STABILITY[(w >>> 16) & 0xff], dependency = DEPENDENCY_CLASS[(w >>> 8) & 0xff];
    if (!name || !data || !dependency) fail(`${where}: invalid stability attributes 0x${w.toString(16)}`);
    return { name, data, dependency };
  }

  /** The section a link names, which must exist, be loaded and have the expected type. */
  private link(idx: number, type: number, from: string): Section {
    const s = this.sections[idx];
    if (s === undefined) {
      fail(`${from} links to section ${idx}, but there are only ${this.sections.length} sections`);
    }
    if (s.type !== type) {
      fail(`${from} links to section ${idx} (${sectionTypeName(s.type)}) where ${sectionTypeName(type)} is expected`);
    }
    if (!(s.flags & DOF_SECF_LOAD)) fail(`${from} links to section ${idx}, which is not loadable`);
    return s;
  }

  private string(strtab: Section, off: number, what: string): string {
    if (off >= strtab.size) {
      fail(`${what}: string offset ${off} is past the end of the string table in section ${strtab.index}`);
    }
    const start = strtab.offset + off;
    const end = this.buf.indexOf(0, start); // found: the table ends with a NUL
    try {
      return UTF8.decode(this.buf.subarray(start, end));
    } catch {
      return fail(`${what}: the string at offset ${off} of section ${strtab.index} is not valid UTF-8`);
    }
  }

  private expect(s: Section, align: number, minSize: number, what: string): void {
    if (s.align !== align) fail(`section ${s.index} (${what}) has alignment ${s.align}, not ${align}`);
    if (s.size < minSize) fail(`section ${s.index} (${what}) is truncated: ${s.size} bytes, at least ${minSize} needed`);
  }

  private ecb(s: Section): EcbDescription {
    const where = `ECB description in section ${s.index}`;
    this.expect(s, 8, DOF_ECBDESC_SIZE, 'ECBDESC');
    const o = s.offset;
    const probesec = this.buf.readUInt32LE(o);
    const predsec = this.buf.readUInt32LE(o + 4);
    const actsec = this.buf.readUInt32LE(o + 8);
    const uarg = this.buf.readBigUInt64LE(o + 16);
    const probe = this.probe(this.link(probesec, DOF_SECT_PROBEDESC, where));
    const predicate = predsec === DOF_SECIDX_NONE ? null : this.difo(this.link(predsec, DOF_SECT_DIFOHDR, where));
    const actions = actsec === DOF_SECIDX_NONE ? [] : this.actions(this.link(actsec, DOF_SECT_ACTDESC, where));
    return { probe, predicate, actions, uarg };
  }

  private probe(s: Section): ProbeDescription {
    const where = `probe description in section ${s.index}`;
    this.expect(s, 4, DOF_PROBEDESC_SIZE, 'PROBEDESC');
    const o = s.offset;
    const strtab = this.link(this.buf.readUInt32LE(o), DOF_SECT_STRTAB, where);
    const str = (at: number, what: string): string => this.string(strtab, this.buf.readUInt32LE(o + at), `${where}, ${what}`);
    const hasInstance = s.size >= DOF_PROBEDESC_INSTANCE_SIZE && s.entsize >= DOF_PROBEDESC_INSTANCE_SIZE;
    return {
      instance: hasInstance ? str(24, 'instance') : 'host',
      provider: str(4, 'provider'),
      module: str(8, 'module'),
      function: str(12, 'function'),
      name: str(16, 'name'),
      id: this.buf.readUInt32LE(o + 20),
    };
  }

  private actions(s: Section): ActionDescription[] {
    this.expect(s, 8, DOF_ACTDESC_SIZE, 'ACTDESC');
    if (s.entsize < DOF_ACTDESC_SIZE) {
      fail(`section ${s.index} (ACTDESC) has entry size ${s.entsize}, less than ${DOF_ACTDESC_SIZE}`);
    }
    const out: ActionDescription[] = [];
    for (let off = 0; off + DOF_ACTDESC_SIZE <= s.size; off += s.entsize) {
      const where = `action ${out.length} in section ${s.index}`;
      const o = s.offset + off;
      const difosec = this.buf.readUInt32LE(o);
      const strsec = this.buf.readUInt32LE(o + 4);
      const kind = this.buf.readUInt32LE(o + 8);
      const ntuple = this.buf.readUInt32LE(o + 12);
      let arg = this.buf.readBigUInt64LE(o + 16);
      let uarg = this.buf.readBigUInt64LE(o + 24);
      const a: ActionDescription = {
        kind,
        difo: difosec === DOF_SECIDX_NONE ? null : this.difo(this.link(difosec, DOF_SECT_DIFOHDR, where)),
        ntuple,
        arg,
        uarg,
      };
      if (strsec !== DOF_SECIDX_NONE) {
        const strtab = this.link(strsec, DOF_SECT_STRTAB, where);
        if (D.isPrintfLikeAction(kind) || kind === D.DTRACEACT_DIFEXPR) {
          if (arg === 0n) fail(`${where}: empty format string (offset 0)`);
          a.format = this.string(strtab, safe(arg, 'format offset'), `${where}, format`);
          arg = 0n;
        } else if (D.isAggregatingAction(kind)) {
          const { id, nameOffset } = unpackAggregationUarg(uarg);
          a.aggName = this.string(strtab, nameOffset, `${where}, aggregation name`);
          uarg = id;
        }
        a.arg = arg;
        a.uarg = uarg;
      }
      out.push(a);
    }
    return out;
  }

  private difo(s: Section): Difo {
    const where = `DIF object in section ${s.index}`;
    this.expect(s, 4, DOF_DIFOHDR_SIZE, 'DIFOHDR');
    if ((s.size - DOF_DIFTYPE_SIZE) % 4 !== 0) fail(`${where}: header size ${s.size} is not a whole number of links`);
    const rtype = this.difType(s.offset, where);
    const parts = new Map<number, Section>();
    for (let off = DOF_DIFTYPE_SIZE; off < s.size; off += 4) {
      const idx = this.buf.readUInt32LE(s.offset + off);
      const sub = this.sections[idx];
      if (sub === undefined) fail(`${where} links to section ${idx}, but there are only ${this.sections.length} sections`);
      const shape = DIFO_PARTS.get(sub.type);
      if (shape === undefined) continue; // other DIF object sections (e.g. relocations) are not needed here
      if (!(sub.flags & DOF_SECF_LOAD)) fail(`${where} links to section ${idx}, which is not loadable`);
      if (parts.has(sub.type)) fail(`${where} links to more than one ${sectionTypeName(sub.type)} section`);
      if (sub.align !== shape.align) {
        fail(`section ${idx} (${sectionTypeName(sub.type)}) has alignment ${sub.align}, not ${shape.align}`);
      }
      if (sub.entsize !== shape.entsize) {
        fail(`section ${idx} (${sectionTypeName(sub.type)}) has entry size ${sub.entsize}, not ${shape.entsize}`);
      }
      if (shape.entsize !== 0 && sub.size % shape.entsize !== 0) {
        fail(`section ${idx} (${sectionTypeName(sub.type)}) size ${sub.size} is not a multiple of ${shape.entsize}`);
      }
      parts.set(sub.type, sub);
    }

    const text = parts.get(DOF_SECT_DIF);
    if (text === undefined || text.size === 0) fail(`${where} has no DIF instructions`);
    const insns = new Uint32Array(text.size / DIF_INSTR_SIZE);
    for (let i = 0; i < insns.length; i++) insns[i] = this.buf.readUInt32LE(text.offset + i * DIF_INSTR_SIZE);

    const ints = parts.get(DOF_SECT_INTTAB);
    const inttab: bigint[] = [];
    if (ints) for (let off = 0; off < ints.size; off += 8) inttab.push(this.buf.readBigUInt64LE(ints.offset + off));

    const strs = parts.get(DOF_SECT_STRTAB);
    const strtab = strs ? Buffer.from(this.buf.subarray(strs.offset, strs.offset + strs.size)) : Buffer.alloc(0);

    const vars = parts.get(DOF_SECT_VARTAB);
    const vartab: DifVar[] = [];
    if (vars) {
      for (let off = 0; off < vars.size; off += DOF_DIFV_SIZE) {
        const o = vars.offset + off;
        const what = `${where}, variable ${vartab.length}`;
        const nameOff = this.buf.readUInt32LE(o);
        if (strs === undefined) fail(`${what}: the DIF object has no string table for its name`);
        vartab.push({
          name: this.string(strs, nameOff, what),
          id: this.buf.readUInt32LE(o + 4),
          kind: this.buf[o + 8]!,
          scope: this.buf[o + 9]!,
          flags: this.buf.readUInt16LE(o + 10),
          type: this.difType(o + 12, what),
        });
      }
    }

    const difo: Difo = { insns, strtab, inttab, vartab, rtype };
    const problems = validateDifo(difo);
    if (problems.length > 0) fail(`${where}: ${problems[0]}`);
    return difo;
  }

  private difType(o: number, where: string): DifType {
    const t: DifType = {
      kind: this.buf[o]!,
      ckind: this.buf[o + 1]!,
      flags: this.buf[o + 2]!,
      size: this.buf.readUInt32LE(o + 4),
    };
    if (t.kind !== D.DIF_TYPE_CTF && t.kind !== D.DIF_TYPE_STRING) fail(`${where}: unknown type kind ${t.kind}`);
    return t;
  }

  private options(s: Section, into: Map<string, string>): void {
    this.expect(s, 8, 0, 'OPTDESC');
    if (s.entsize < DOF_OPTDESC_SIZE) {
      fail(`section ${s.index} (OPTDESC) has entry size ${s.entsize}, less than ${DOF_OPTDESC_SIZE}`);
    }
    for (let off = 0; off + DOF_OPTDESC_SIZE <= s.size; off += s.entsize) {
      const where = `option ${off / s.entsize} in section ${s.index}`;
      const o = s.offset + off;
      const id = this.buf.readUInt32LE(o);
      const strsec = this.buf.readUInt32LE(o + 4);
      const value = this.buf.readBigUInt64LE(o + 8);
      if (strsec === DOF_SECIDX_NONE) {
        // A kernel-style option: an integer value for a DTRACEOPT_* id.
        const name = DTRACEOPT_NAMES[id];
        if (name === undefined) fail(`${where}: unknown option id ${id}`);
        into.set(name, BigInt.asIntN(64, value).toString());
        continue;
      }
      if (s.entsize < DOF_OPTDESC_NAMED_SIZE || off + DOF_OPTDESC_NAMED_SIZE > s.size) {
        fail(`${where} has a string value but no name`);
      }
      const strtab = this.link(strsec, DOF_SECT_STRTAB, where);
      const name = this.string(strtab, this.buf.readUInt32LE(o + 16), `${where}, name`);
      into.set(name, this.string(strtab, safe(value, 'option value offset'), `${where}, value`));
    }
  }
}

const DIFO_PARTS = new Map<number, { align: number; entsize: number }>([
  [DOF_SECT_DIF, { align: DIF_INSTR_SIZE, entsize: DIF_INSTR_SIZE }],
  [DOF_SECT_INTTAB, { align: 8, entsize: 8 }],
  [DOF_SECT_STRTAB, { align: 1, entsize: 0 }],
  [DOF_SECT_VARTAB, { align: 4, entsize: DOF_DIFV_SIZE }],
]);

/** Decode DOF into a program. Throws an Error ("DOF: ...") on anything malformed. */
export function readDof(buf: Buffer): Program {
  return new DofReader(buf).read();
}
