// Encoder for raw BTF, used to build small, exact type graphs for tests
// (every kind, split BTF, big-endian data) without depending on a kernel.

import { BTF_INT_BOOL, BTF_INT_CHAR, BTF_INT_SIGNED, BTF_KIND, LINKAGES, type BtfLinkage } from './types.js';
import type { Btf } from './btf.js';

export interface BuilderMember {
  name: string;
  type: number;
  bitOffset: number;
  /** Bitfield width; when any member has one the struct uses the kind_flag encoding. */
  bitfieldSize?: number;
}

export interface BuilderIntOptions {
  signed?: boolean;
  char?: boolean;
  bool?: boolean;
  /** Value bits; defaults to size * 8. */
  bits?: number;
  /** BTF_INT_OFFSET, for old-style bitfields. */
  offset?: number;
}

export class BtfBuilder {
  private readonly littleEndian: boolean;
  private readonly firstId: number;
  private readonly strBase: number;
  private readonly records: Buffer[] = [];
  private readonly strings: Buffer[] = [];
  private readonly stringOffsets = new Map<string, number>();
  private strLen = 0;

  constructor(options: { base?: Btf; littleEndian?: boolean } = {}) {
    this.littleEndian = options.littleEndian ?? true;
    this.firstId = options.base ? options.base.typeCount : 1;
    this.strBase = options.base ? options.base.stringsEnd : 0;
    // Base BTF strings start with the empty string; split BTF reuses the base's.
    if (options.base) this.stringOffsets.set('', 0);
    else this.addString('');
  }

  /** Offset of a string in the string section, adding it once. */
  addString(s: string): number {
    const known = this.stringOffsets.get(s);
    if (known !== undefined) return known;
    const bytes = Buffer.from(`${s}\0`, 'utf8');
    const offset = this.strBase + this.strLen;
    this.strings.push(bytes);
    this.strLen += bytes.length;
    this.stringOffsets.set(s, offset);
    return offset;
  }

  private words(values: number[]): Buffer {
    const b = Buffer.alloc(values.length * 4);
    values.forEach((v, i) => {
      if (this.littleEndian) b.writeUInt32LE(v >>> 0, i * 4);
      else b.writeUInt32BE(v >>> 0, i * 4);
    });
    return b;
  }

  private add(name: string, kind: number, vlen: number, kindFlag: boolean, sizeOrType: number, extra: number[] = []): number {
    const info = ((kindFlag ? 1 : 0) << 31) | (kind << 24) | vlen;
    this.records.push(this.words([this.addString(name), info, sizeOrType, ...extra]));
    return this.firstId + this.records.length - 1;
  }

  int(name: string, size: number, o: BuilderIntOptions = {}): number {
    const enc = (o.signed ? BTF_INT_SIGNED : 0) | (o.char ? BTF_INT_CHAR : 0) | (o.bool ? BTF_INT_BOOL : 0);
    const data = (enc << 24) | ((o.offset ?? 0) << 16) | (o.bits ?? size * 8);
    return this.add(name, BTF_KIND.INT, 0, false, size, [data]);
  }

  ptr(target: number): number {
    return this.add('', BTF_KIND.PTR, 0, false, target);
  }

  array(element: number, indexType: number, count: number): number {
    return this.add('', BTF_KIND.ARRAY, 0, false, 0, [element, indexType, count]);
  }

  struct(name: string, size: number, members: BuilderMember[]): number {
    return this.composite(BTF_KIND.STRUCT, name, size, members);
  }

  union(name: string, size: number, members: BuilderMember[]): number {
    return this.composite(BTF_KIND.UNION, name, size, members);
  }

  private composite(kind: number, name: string, size: number, members: BuilderMember[]): number {
    const kindFlag = members.some((m) => (m.bitfieldSize ?? 0) > 0);
    const extra = members.flatMap((m) => [
      this.addString(m.name),
      m.type,
      kindFlag ? ((m.bitfieldSize ?? 0) << 24) | m.bitOffset : m.bitOffset,
    ]);
    return this.add(name, kind, members.length, kindFlag, size, extra);
  }

  enum(name: string, size: number, values: [string, number][], signed = false): number {
    const extra = values.flatMap(([n, v]) => [this.addString(n), v]);
    return this.add(name, BTF_KIND.ENUM, values.length, signed, size, extra);
  }

  enum64(name: string, size: number, values: [string, bigint][], signed = false): number {
    const extra = values.flatMap(([n, v]) => {
      const bits = BigInt.asUintN(64, v);
      return [this.addString(n), Number(bits & 0xffffffffn), Number(bits >> 32n)];
    });
    return this.add(name, BTF_KIND.ENUM64, values.length, signed, size, extra);
  }

  fwd(name: string, union = false): number {
    return this.add(name, BTF_KIND.FWD, 0, union, 0);
  }

  typedef(name: string, target: number): number {
    return this.add(name, BTF_KIND.TYPEDEF, 0, false, target);
  }

  qualifier(kind: 'const' | 'volatile' | 'restrict', target: number): number {
    const k = kind === 'const' ? BTF_KIND.CONST : kind === 'volatile' ? BTF_KIND.VOLATILE : BTF_KIND.RESTRICT;
    return this.add('', k, 0, false, target);
  }

  typeTag(name: string, target: number): number {
    return this.add(name, BTF_KIND.TYPE_TAG, 0, false, target);
  }

  funcProto(returnType: number, params: { name: string; type: number }[], variadic = false): number {
    const all = variadic ? [...params, { name: '', type: 0 }] : params;
    const extra = all.flatMap((p) => [this.addString(p.name), p.type]);
    return this.add('', BTF_KIND.FUNC_PROTO, all.length, false, returnType, extra);
  }

  func(name: string, proto: number, linkage: BtfLinkage = 'global'): number {
    return this.add(name, BTF_KIND.FUNC, LINKAGES.indexOf(linkage), false, proto);
  }

  variable(name: string, type: number, linkage: BtfLinkage = 'global'): number {
    return this.add(name, BTF_KIND.VAR, 0, false, type, [LINKAGES.indexOf(linkage)]);
  }

  datasec(name: string, size: number, vars: { type: number; offset: number; size: number }[]): number {
    const extra = vars.flatMap((v) => [v.type, v.offset, v.size]);
    return this.add(name, BTF_KIND.DATASEC, vars.length, false, size, extra);
  }

  float(name: string, size: number): number {
    return this.add(name, BTF_KIND.FLOAT, 0, false, size);
  }

  declTag(name: string, target: number, componentIdx = -1): number {
    return this.add(name, BTF_KIND.DECL_TAG, 0, false, target, [componentIdx]);
  }

  /** The raw BTF: header, type section, string section. */
  build(): Buffer {
    const types = Buffer.concat(this.records);
    const strings = Buffer.concat(this.strings);
    const header = Buffer.alloc(24);
    if (this.littleEndian) header.writeUInt16LE(0xeb9f, 0);
    else header.writeUInt16BE(0xeb9f, 0);
    header[2] = 1;
    header[3] = 0;
    const rest = this.words([24, 0, types.length, types.length, strings.length]);
    rest.copy(header, 4);
    return Buffer.concat([header, types, strings]);
  }
}
