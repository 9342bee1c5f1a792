// BTF reader: the Linux counterpart of CTF. Parses raw BTF (as found in
// /sys/kernel/btf/*) and answers the questions the D compiler asks about kernel
// types: names, sizes, alignments, member offsets and C type names.
//
// Parsing only records where each type record starts; types are decoded on
// first use and the name index is built on the first lookup by name, so
// loading the ~6 MB vmlinux BTF stays cheap.

import { readFileSync, readdirSync } from 'node:fs';
import {
  BTF_INT_BOOL,
  BTF_INT_CHAR,
  BTF_INT_SIGNED,
  BTF_KIND,
  BtfError,
  KIND_NAMES,
  LINKAGES,
  type BtfComposite,
  type BtfKindName,
  type BtfLinkage,
  type BtfMember,
  type BtfMemberInfo,
  type BtfType,
} from './types.js';
import { renderTypeName } from './typename.js';
import { systemPaths } from '../sys/paths.js';

export * from './types.js';
export { renderTypeName } from './typename.js';

const BTF_MAGIC = 0xeb9f;
const BTF_VERSION = 1;
const HEADER_MIN_LEN = 24;
const TYPE_RECORD_LEN = 12;
/** Longest typedef/qualifier chain we follow before calling the data cyclic. */
const MAX_CHAIN = 128;

export interface BtfParseOptions {
  /** Base BTF for split BTF (kernel modules are split BTF on top of vmlinux). */
  base?: Btf;
  /** Name used in messages and by scoped lookups, e.g. 'vmlinux' or a module name. */
  name?: string;
  /** Pointer size in bytes; BTF does not record it. Defaults to the base's, else 8. */
  pointerSize?: number;
}

export interface BtfEnumeratorInfo {
  /** Id of the enum type that defines the enumerator. */
  type: number;
  value: bigint;
}

/** Kind filter for lookups: 'enum' also matches enum64 types. */
export type BtfKindFilter = BtfKindName;

function kindMatches(actual: BtfKindName, wanted: BtfKindFilter): boolean {
  return actual === wanted || (wanted === 'enum' && actual === 'enum64');
}

/** Size of the data that follows the 12-byte btf_type record, or -1 for an unknown kind. */
function extraLength(kind: number, vlen: number): number {
  switch (kind) {
    case BTF_KIND.INT:
    case BTF_KIND.VAR:
    case BTF_KIND.DECL_TAG:
      return 4;
    case BTF_KIND.ARRAY:
      return 12;
    case BTF_KIND.STRUCT:
    case BTF_KIND.UNION:
    case BTF_KIND.ENUM64:
    case BTF_KIND.DATASEC:
      return vlen * 12;
    case BTF_KIND.ENUM:
    case BTF_KIND.FUNC_PROTO:
      return vlen * 8;
    case BTF_KIND.PTR:
    case BTF_KIND.FWD:
    case BTF_KIND.TYPEDEF:
    case BTF_KIND.VOLATILE:
    case BTF_KIND.CONST:
    case BTF_KIND.RESTRICT:
    case BTF_KIND.FUNC:
    case BTF_KIND.FLOAT:
    case BTF_KIND.TYPE_TAG:
      return 0;
    default:
      return -1;
  }
}

/** Types chained by name hash: heads[hash & mask] is a type index, next[index] the next one (-1 ends). */
interface NameIndex {
  heads: Int32Array;
  next: Int32Array;
  mask: number;
}

/** FNV-1a of the NUL-terminated bytes at `start`. */
function hashBytes(buf: Uint8Array, start: number): number {
  let h = 0x811c9dc5;
  for (let i = start; buf[i] !== 0 && i < buf.length; i++) h = Math.imul(h ^ buf[i], 0x01000193);
  return h >>> 0;
}

export class Btf {
  readonly name: string;
  readonly base: Btf | undefined;
  /** First type id defined by this BTF (1 for base BTF, base.typeCount for split BTF). */
  readonly startId: number;
  readonly littleEndian: boolean;
  readonly pointerSize: number;

  private readonly buf: Buffer;
  private readonly view: DataView;
  private readonly strStart: number;
  private readonly strLen: number;
  /** String offsets below this belong to the base BTF. */
  private readonly strBase: number;
  /** Absolute buffer offset of each own type record, indexed by (id - startId). */
  private readonly offsets: Uint32Array;
  private readonly decoded: (BtfType | undefined)[];
  private nameIndex: NameIndex | undefined;
  /** find()'s answers: the parser asks about every identifier of a program (is it a typedef?). */
  private readonly found = new Map<string, BtfType | null>();
  private enumeratorIndex: Map<string, BtfEnumeratorInfo> | undefined;

  static parse(buf: Buffer, options: BtfParseOptions = {}): Btf {
    return new Btf(buf, options);
  }

  private constructor(buf: Buffer, options: BtfParseOptions) {
    this.buf = buf;
    this.base = options.base;
    this.name = options.name ?? (options.base ? 'module' : 'vmlinux');
    this.pointerSize = options.pointerSize ?? options.base?.pointerSize ?? 8;
    const what = `BTF '${this.name}'`;
    if (buf.length < HEADER_MIN_LEN) {
      throw new BtfError(`${what}: ${buf.length} bytes is too short for a BTF header (${HEADER_MIN_LEN} bytes)`);
    }
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    const magicLE = this.view.getUint16(0, true);
    if (magicLE === BTF_MAGIC) this.littleEndian = true;
    else if (this.view.getUint16(0, false) === BTF_MAGIC) this.littleEndian = false;
    else throw new BtfError(`${what}: bad magic 0x${magicLE.toString(16).padStart(4, '0')} (expected 0xeb9f)`);

    const version = buf[2];
    if (version !== BTF_VERSION) throw new BtfError(`${what}: unsupported version ${version} (expected ${BTF_VERSION})`);
    const hdrLen = this.u32(4);
    if (hdrLen < HEADER_MIN_LEN || hdrLen > buf.length) {
      throw new BtfError(`${what}: header length ${hdrLen} is invalid for a ${buf.length}-byte buffer`);
    }
    const typeOff = this.u32(8);
    const typeLen = this.u32(12);
    const strOff = this.u32(16);
    const strLen = this.u32(20);
    const typeStart = hdrLen + typeOff;
    const typeEnd = typeStart + typeLen;
    this.strStart = hdrLen + strOff;
    this.strLen = strLen;
    const strEnd = this.strStart + strLen;
    if (typeEnd > buf.length) {
      throw new BtfError(`${what}: type section [${typeStart}, ${typeEnd}) runs past the end of the data (${buf.length} bytes)`);
    }
    if (strEnd > buf.length) {
      throw new BtfError(`${what}: string section [${this.strStart}, ${strEnd}) runs past the end of the data (${buf.length} bytes)`);
    }
    if (typeOff % 4 !== 0) throw new BtfError(`${what}: type section offset ${typeOff} is not 4-byte aligned`);
    if (typeStart < strEnd && this.strStart < typeEnd) throw new BtfError(`${what}: type and string sections overlap`);
    if (strLen === 0 && !this.base) throw new BtfError(`${what}: empty string section`);
    if (strLen > 0 && buf[strEnd - 1] !== 0) throw new BtfError(`${what}: string section does not end with a NUL byte`);
    if (!this.base && buf[this.strStart] !== 0) throw new BtfError(`${what}: string section does not start with the empty string`);

    this.strBase = this.base ? this.base.strBase + this.base.strLen : 0;
    this.startId = this.base ? this.base.typeCount : 1;
    this.offsets = this.scanTypes(typeStart, typeEnd, what);
    this.decoded = new Array(this.offsets.length);
  }

  /** Walk the type section once, recording where each record starts. */
  private scanTypes(start: number, end: number, what: string): Uint32Array {
    const offsets = new Uint32Array(Math.floor((end - start) / TYPE_RECORD_LEN));
    const strLimit = this.strBase + this.strLen;
    let n = 0;
    let off = start;
    while (off < end) {
      const id = this.startId + n;
      if (off + TYPE_RECORD_LEN > end) throw new BtfError(`${what}: type ${id} at offset ${off} is truncated`);
      const nameOff = this.u32(off);
      const info = this.u32(off + 4);
      const kind = (info >>> 24) & 0x1f;
      const extra = extraLength(kind, info & 0xffff);
      if (extra < 0) throw new BtfError(`${what}: type ${id} at offset ${off} has unknown kind ${kind}`);
      if (nameOff >= strLimit) {
        throw new BtfError(`${what}: type ${id} has name offset ${nameOff} outside the string section (${strLimit} bytes)`);
      }
      const next = off + TYPE_RECORD_LEN + extra;
      if (next > end) throw new BtfError(`${what}: type ${id} (${KIND_NAMES[kind]}) at offset ${off} runs past the type section`);
      offsets[n++] = off;
      off = next;
    }
    return offsets.slice(0, n);
  }

  private u32(off: number): number {
    return this.view.getUint32(off, this.littleEndian);
  }

  private i32(off: number): number {
    return this.view.getInt32(off, this.littleEndian);
  }

  /** One past the highest type id (ids run from 0, void, to typeCount - 1). */
  get typeCount(): number {
    return this.startId + this.offsets.length;
  }

  /** One past the highest string offset (base strings included); split BTF built on this starts here. */
  get stringsEnd(): number {
    return this.strBase + this.strLen;
  }

  /** Read a string from the (possibly shared with the base) string section. */
  str(offset: number): string {
    if (offset < this.strBase) return this.base!.str(offset);
    const local = offset - this.strBase;
    if (local >= this.strLen) {
      throw new BtfError(`BTF '${this.name}': string offset ${offset} is outside the string section`);
    }
    const start = this.strStart + local;
    // The section ends with a NUL (checked when parsing), so this NUL is inside it.
    const end = this.buf.indexOf(0, start);
    return this.buf.toString('utf8', start, end);
  }

  private checkId(id: number, from: number): number {
    if (!Number.isInteger(id) || id < 0 || id >= this.typeCount) {
      throw new BtfError(`BTF '${this.name}': type ${from} refers to type ${id}, which does not exist (${this.typeCount} types)`);
    }
    return id;
  }

  /** The owner of a type id: this BTF or one of its bases. */
  private owner(id: number): Btf {
    let btf: Btf = this;
    while (id < btf.startId && btf.base) btf = btf.base;
    return btf;
  }

  /** Kind of a type without decoding it fully. */
  kindOf(id: number): BtfKindName {
    if (id === 0) return 'void';
    const btf = this.owner(id);
    return KIND_NAMES[(btf.u32(btf.recordOffset(id) + 4) >>> 24) & 0x1f];
  }

  private recordOffset(id: number): number {
    const index = id - this.startId;
    if (!Number.isInteger(id) || index < 0 || index >= this.offsets.length) {
      throw new BtfError(`BTF '${this.name}': no type with id ${id} (valid ids are 0..${this.typeCount - 1})`);
    }
    return this.offsets[index];
  }

  /** The typed description of a type id (0 is void). */
  type(id: number): BtfType {
    if (id === 0) return { kind: 'void', id: 0, name: 'void' };
    const btf = this.owner(id);
    if (btf !== this) return btf.type(id);
    const index = id - this.startId;
    const cached = this.decoded[index];
    if (cached) return cached;
    const t = this.decode(id, this.recordOffset(id));
    this.decoded[index] = t;
    return t;
  }

  private decode(id: number, off: number): BtfType {
    const name = this.str(this.u32(off));
    const info = this.u32(off + 4);
    const kind = (info >>> 24) & 0x1f;
    const vlen = info & 0xffff;
    const kindFlag = info >>> 31 === 1;
    const sizeOrType = this.u32(off + 8);
    const data = off + TYPE_RECORD_LEN;
    const ref = (target: number): number => this.checkId(target, id);
    const linkage = (value: number): BtfLinkage => {
      const l = LINKAGES[value];
      if (!l) throw new BtfError(`BTF '${this.name}': type ${id} has unknown linkage ${value}`);
      return l;
    };

    switch (kind) {
      case BTF_KIND.INT: {
        const enc = this.u32(data);
        const encoding = (enc >>> 24) & 0x0f;
        return {
          kind: 'int', id, name, size: sizeOrType,
          signed: (encoding & BTF_INT_SIGNED) !== 0,
          char: (encoding & BTF_INT_CHAR) !== 0,
          bool: (encoding & BTF_INT_BOOL) !== 0,
          bits: enc & 0xff,
          bitOffset: (enc >>> 16) & 0xff,
        };
      }
      case BTF_KIND.PTR:
        return { kind: 'ptr', id, name, target: ref(sizeOrType) };
      case BTF_KIND.ARRAY:
        return {
          kind: 'array', id, name,
          element: ref(this.u32(data)),
          indexType: ref(this.u32(data + 4)),
          count: this.u32(data + 8),
        };
      case BTF_KIND.STRUCT:
      case BTF_KIND.UNION: {
        const members: BtfMember[] = [];
        for (let i = 0, p = data; i < vlen; i++, p += 12) {
          const raw = this.u32(p + 8);
          members.push({
            name: this.str(this.u32(p)),
            type: ref(this.u32(p + 4)),
            bitOffset: kindFlag ? raw & 0xffffff : raw,
            bitfieldSize: kindFlag ? raw >>> 24 : 0,
          });
        }
        return { kind: kind === BTF_KIND.STRUCT ? 'struct' : 'union', id, name, size: sizeOrType, members };
      }
      case BTF_KIND.ENUM: {
        const values = [];
        for (let i = 0, p = data; i < vlen; i++, p += 8) {
          // kind_flag marks a signed enum; the stored 32 bits are the same either way.
          const value = kindFlag ? BigInt(this.i32(p + 4)) : BigInt(this.u32(p + 4));
          values.push({ name: this.str(this.u32(p)), value });
        }
        return { kind: 'enum', id, name, size: sizeOrType, signed: kindFlag, values };
      }
      case BTF_KIND.ENUM64: {
        const values = [];
        for (let i = 0, p = data; i < vlen; i++, p += 12) {
          const bits = (BigInt(this.u32(p + 8)) << 32n) | BigInt(this.u32(p + 4));
          values.push({ name: this.str(this.u32(p)), value: kindFlag ? BigInt.asIntN(64, bits) : bits });
        }
        return { kind: 'enum64', id, name, size: sizeOrType, signed: kindFlag, values };
      }
      case BTF_KIND.FWD:
        return { kind: 'fwd', id, name, union: kindFlag };
      case BTF_KIND.TYPEDEF:
        return { kind: 'typedef', id, name, target: ref(sizeOrType) };
      case BTF_KIND.VOLATILE:
        return { kind: 'volatile', id, name, target: ref(sizeOrType) };
      case BTF_KIND.CONST:
        return { kind: 'const', id, name, target: ref(sizeOrType) };
      case BTF_KIND.RESTRICT:
        return { kind: 'restrict', id, name, target: ref(sizeOrType) };
      case BTF_KIND.TYPE_TAG:
        return { kind: 'type_tag', id, name, target: ref(sizeOrType), attribute: kindFlag };
      case BTF_KIND.FUNC:
        return { kind: 'func', id, name, proto: ref(sizeOrType), linkage: linkage(vlen) };
      case BTF_KIND.FUNC_PROTO: {
        const params = [];
        let variadic = false;
        for (let i = 0, p = data; i < vlen; i++, p += 8) {
          const nameOff = this.u32(p);
          const type = ref(this.u32(p + 4));
          if (i === vlen - 1 && type === 0 && nameOff === 0) variadic = true;
          else params.push({ name: this.str(nameOff), type });
        }
        return { kind: 'func_proto', id, name, returnType: ref(sizeOrType), params, variadic };
      }
      case BTF_KIND.VAR:
        return { kind: 'var', id, name, type: ref(sizeOrType), linkage: linkage(this.u32(data)) };
      case BTF_KIND.DATASEC: {
        const vars = [];
        for (let i = 0, p = data; i < vlen; i++, p += 12) {
          vars.push({ type: ref(this.u32(p)), offset: this.u32(p + 4), size: this.u32(p + 8) });
        }
        return { kind: 'datasec', id, name, size: sizeOrType, vars };
      }
      case BTF_KIND.FLOAT:
        return { kind: 'float', id, name, size: sizeOrType };
      case BTF_KIND.DECL_TAG:
        return { kind: 'decl_tag', id, name, target: ref(sizeOrType), componentIdx: this.i32(data), attribute: kindFlag };
      default:
        throw new BtfError(`BTF '${this.name}': type ${id} has unknown kind ${kind}`);
    }
  }

  // ---- lookups by name ----

  /**
   * The name index: types chained by a hash of their name's bytes, read in place from the string
   * section. Decoding every name to a JS string (vmlinux has ~150k types) costs a few hundred ms;
   * hashing the bytes costs a few, so a one-liner that names one kernel type pays only that.
   */
  private names(): NameIndex {
    if (this.nameIndex) return this.nameIndex;
    const count = this.offsets.length;
    let size = 1;
    while (size < count * 2) size <<= 1;
    const heads = new Int32Array(size).fill(-1);
    const next = new Int32Array(count).fill(-1);
    // Backwards, so that each chain lists its types in ascending id order.
    for (let i = count - 1; i >= 0; i--) {
      const nameOff = this.u32(this.offsets[i]);
      if (nameOff === 0) continue;
      const { buf, start } = this.strBytes(nameOff);
      const h = hashBytes(buf, start) & (size - 1);
      next[i] = heads[h];
      heads[h] = i;
    }
    this.nameIndex = { heads, next, mask: size - 1 };
    return this.nameIndex;
  }

  /** Where a string's bytes are: this BTF's buffer or a base's. */
  private strBytes(offset: number): { buf: Buffer; start: number } {
    if (offset < this.strBase) return this.base!.strBytes(offset);
    return { buf: this.buf, start: this.strStart + offset - this.strBase };
  }

  /** This BTF's own types named `name`, in ascending id order. */
  private ownIds(name: string): number[] {
    const index = this.names();
    const want = Buffer.from(name + '\0', 'utf8');
    const ids: number[] = [];
    if (want.indexOf(0) !== want.length - 1) return ids; // a name holding NUL names nothing
    for (let i = index.heads[hashBytes(want, 0) & index.mask]; i >= 0; i = index.next[i]) {
      const { buf, start } = this.strBytes(this.u32(this.offsets[i]));
      const end = start + want.length;
      if (end <= buf.length && buf.compare(want, 0, want.length, start, end) === 0) ids.push(this.startId + i);
    }
    return ids;
  }

  /** Ids of every type with this name (own types, then the base's). */
  findIds(name: string): number[] {
    const own = this.ownIds(name);
    return this.base ? [...own, ...this.base.findIds(name)] : [...own];
  }

  /**
   * First type with this name and kind ('enum' also matches enum64); without a
   * kind, the first type of any kind. Own types are searched before the base's.
   */
  find(name: string, kind?: BtfKindFilter): BtfType | undefined {
    const key = kind === undefined ? name : `${kind} ${name}`;
    let t = this.found.get(key);
    if (t === undefined) {
      t = null;
      for (const id of this.ownIds(name)) {
        if (kind === undefined || kindMatches(this.kindOf(id), kind)) { t = this.type(id); break; }
      }
      t ??= this.base?.find(name, kind) ?? null;
      this.found.set(key, t);
    }
    return t ?? undefined;
  }

  /** Like find(), but throws a BtfError naming what was missing. */
  get(name: string, kind?: BtfKindFilter): BtfType {
    const t = this.find(name, kind);
    if (!t) throw new BtfError(`BTF '${this.name}': no ${kind ? `${kind} ` : 'type '}named '${name}'`);
    return t;
  }

  /**
   * Look a C type name up: `struct task_struct`, `union x`, `enum pid_type`,
   * `unsigned long`, `pid_t`, `void`. Integer names are normalised to the
   * spelling compilers put in BTF (`unsigned long` -> `long unsigned int`).
   * Pointer and array declarators are not handled here.
   */
  lookupCType(cname: string): BtfType | undefined {
    const text = cname.trim().replace(/\s+/g, ' ');
    if (text === 'void') return this.type(0);
    const tagged = /^(struct|union|enum) ([A-Za-z_]\w*)$/.exec(text);
    if (tagged) return this.find(tagged[2], tagged[1] as BtfKindFilter);
    const intName = normalizeIntName(text);
    if (intName !== undefined) {
      const t = this.find(intName, 'int');
      if (t) return t;
    }
    for (const kind of ['typedef', 'int', 'float'] as const) {
      const t = this.find(text, kind);
      if (t) return t;
    }
    return undefined;
  }

  /** The enum that defines an enumerator (e.g. PIDTYPE_TGID) and its value. */
  findEnumerator(name: string): BtfEnumeratorInfo | undefined {
    if (!this.enumeratorIndex) {
      const index = new Map<string, BtfEnumeratorInfo>();
      for (let id = this.startId; id < this.typeCount; id++) {
        const kind = this.kindOf(id);
        if (kind !== 'enum' && kind !== 'enum64') continue;
        const t = this.type(id);
        if (t.kind !== 'enum' && t.kind !== 'enum64') continue;
        for (const v of t.values) if (!index.has(v.name)) index.set(v.name, { type: id, value: v.value });
      }
      this.enumeratorIndex = index;
    }
    return this.enumeratorIndex.get(name) ?? this.base?.findEnumerator(name);
  }

  // ---- type arithmetic ----

  /** Skip typedef, const, volatile, restrict and type tags; returns the underlying type id. */
  resolve(id: number): number {
    let cur = id;
    for (let i = 0; i < MAX_CHAIN; i++) {
      const t = this.type(cur);
      switch (t.kind) {
        case 'typedef':
        case 'const':
        case 'volatile':
        case 'restrict':
        case 'type_tag':
          cur = t.target;
          break;
        default:
          return cur;
      }
    }
    throw new BtfError(`BTF '${this.name}': type ${id} has a typedef/qualifier chain longer than ${MAX_CHAIN} (cycle?)`);
  }

  /** The typed description of resolve(id). */
  resolvedType(id: number): BtfType {
    return this.type(this.resolve(id));
  }

  /** Size in bytes of an object of this type (like C sizeof). Throws for incomplete types. */
  sizeOf(id: number): number {
    return this.sizeOfAt(id, 0);
  }

  private sizeOfAt(id: number, depth: number): number {
    if (depth > MAX_CHAIN) throw new BtfError(`BTF '${this.name}': type ${id} nests too deeply (cycle?)`);
    const t = this.resolvedType(id);
    switch (t.kind) {
      case 'int':
      case 'enum':
      case 'enum64':
      case 'struct':
      case 'union':
      case 'float':
      case 'datasec':
        return t.size;
      case 'ptr':
        return this.pointerSize;
      case 'array':
        return t.count * this.sizeOfAt(t.element, depth + 1);
      case 'var':
        return this.sizeOfAt(t.type, depth + 1);
      default:
        throw new BtfError(`BTF '${this.name}': cannot take the size of ${this.typeName(id)} (${t.kind})`);
    }
  }

  /** Alignment in bytes of this type as the C ABI lays it out. */
  alignOf(id: number): number {
    return this.alignOfAt(id, 0);
  }

  private alignOfAt(id: number, depth: number): number {
    if (depth > MAX_CHAIN) throw new BtfError(`BTF '${this.name}': type ${id} nests too deeply (cycle?)`);
    const t = this.resolvedType(id);
    switch (t.kind) {
      case 'int':
      case 'enum':
      case 'enum64':
      case 'float':
        // Scalars are naturally aligned on the 64-bit ABIs we run on (x86_64, arm64).
        return Math.max(1, Math.min(t.size, 16));
      case 'ptr':
        return this.pointerSize;
      case 'array':
        return this.alignOfAt(t.element, depth + 1);
      case 'var':
        return this.alignOfAt(t.type, depth + 1);
      case 'struct':
      case 'union': {
        let align = 1;
        for (const m of t.members) {
          const a = this.alignOfAt(m.type, depth + 1);
          // A non-bitfield member off its natural alignment means the struct is packed.
          if (m.bitfieldSize === 0 && m.bitOffset % (8 * a) !== 0) return 1;
          align = Math.max(align, a);
        }
        return t.size % align === 0 ? align : 1;
      }
      default:
        throw new BtfError(`BTF '${this.name}': cannot take the alignment of ${this.typeName(id)} (${t.kind})`);
    }
  }

  /** C spelling of a type: `struct task_struct *`, `char [16]`, `int (*)(void *)`. */
  typeName(id: number): string {
    return renderTypeName((x) => this.type(x), id);
  }

  // ---- members ----

  /**
   * Find a member of a struct or union (typedefs and qualifiers on the struct are
   * skipped), searching inside anonymous struct/union members as C does.
   * Offsets are from the start of `structId`. Old-style int bitfields (no kind_flag)
   * are reported with their bitfield width and exact bit offset.
   */
  member(structId: number, name: string): BtfMemberInfo | undefined {
    const t = this.resolvedType(structId);
    if (t.kind !== 'struct' && t.kind !== 'union') {
      throw new BtfError(`BTF '${this.name}': ${this.typeName(structId)} is not a struct or union`);
    }
    return this.findMember(t, name, 0, 0);
  }

  private findMember(t: BtfComposite, name: string, baseBits: number, depth: number): BtfMemberInfo | undefined {
    if (depth > MAX_CHAIN) throw new BtfError(`BTF '${this.name}': ${this.typeName(t.id)} nests too deeply (cycle?)`);
    for (const m of t.members) {
      if (m.name === name) return this.memberInfo(m, baseBits);
    }
    for (const m of t.members) {
      if (m.name !== '') continue;
      const inner = this.resolvedType(m.type);
      if (inner.kind !== 'struct' && inner.kind !== 'union') continue;
      const found = this.findMember(inner, name, baseBits + m.bitOffset, depth + 1);
      if (found) return found;
    }
    return undefined;
  }

  private memberInfo(m: BtfMember, baseBits: number): BtfMemberInfo {
    let bitOffset = baseBits + m.bitOffset;
    let bitfieldSize = m.bitfieldSize;
    if (bitfieldSize === 0) {
      const rt = this.resolvedType(m.type);
      if (rt.kind === 'int' && (rt.bitOffset !== 0 || rt.bits !== rt.size * 8)) {
        bitOffset += rt.bitOffset;
        bitfieldSize = rt.bits;
      }
    }
    return { name: m.name, type: m.type, bitOffset, byteOffset: Math.floor(bitOffset / 8), bitfieldSize };
  }

  /**
   * Offset and type of a member path inside a struct: memberPath('task_struct', 'se.vruntime'),
   * with array subscripts allowed: 'thread.fsbase', 'comm[3]'. The struct is a type id or a
   * name (`struct x`, `union x`, a typedef, or a bare struct/union tag). Throws a BtfError
   * naming the step that failed; offsets never cross a pointer.
   */
  memberPath(struct: number | string, path: string): BtfMemberInfo {
    let cur = typeof struct === 'number' ? struct : this.lookupStructLike(struct);
    const steps = parseMemberPath(path);
    if (steps.length === 0) throw new BtfError(`BTF '${this.name}': empty member path`);
    let bitOffset = 0;
    let bitfieldSize = 0;
    let name = '';
    for (const step of steps) {
      const where = this.typeName(cur);
      if (bitfieldSize !== 0) throw new BtfError(`BTF '${this.name}': '${name}' is a bitfield; '${path}' cannot go further`);
      const t = this.resolvedType(cur);
      if (typeof step === 'string') {
        if (t.kind !== 'struct' && t.kind !== 'union') {
          const hint = t.kind === 'ptr' ? ' (it is a pointer; a member path cannot cross a pointer)' : '';
          throw new BtfError(`BTF '${this.name}': cannot find member '${step}' of ${where}: not a struct or union${hint}`);
        }
        const m = this.findMember(t, step, 0, 0);
        if (!m) throw new BtfError(`BTF '${this.name}': ${where} has no member named '${step}'`);
        bitOffset += m.bitOffset;
        bitfieldSize = m.bitfieldSize;
        cur = m.type;
        name = step;
      } else {
        if (t.kind !== 'array') throw new BtfError(`BTF '${this.name}': cannot index ${where} with [${step}]: not an array`);
        // count 0 is a flexible array member: any index is allowed.
        if (t.count !== 0 && step >= t.count) {
          throw new BtfError(`BTF '${this.name}': index [${step}] is out of bounds for ${where}`);
        }
        bitOffset += step * this.sizeOf(t.element) * 8;
        cur = t.element;
        name = `${name}[${step}]`;
      }
    }
    return { name, type: cur, bitOffset, byteOffset: Math.floor(bitOffset / 8), bitfieldSize };
  }

  private lookupStructLike(name: string): number {
    const t =
      this.lookupCType(name) ?? this.find(name.trim(), 'struct') ?? this.find(name.trim(), 'union');
    if (!t) throw new BtfError(`BTF '${this.name}': no struct, union or typedef named '${name}'`);
    return t.id;
  }
}

/** 'a.b[2].c' -> ['a', 'b', 2, 'c']. */
function parseMemberPath(path: string): (string | number)[] {
  const steps: (string | number)[] = [];
  const token = /\s*(?:(\.)?\s*([A-Za-z_]\w*)|\[\s*(\d+)\s*\])\s*/y;
  let pos = 0;
  while (pos < path.length) {
    token.lastIndex = pos;
    const m = token.exec(path);
    // A name needs a '.' before it, except the first one.
    const ok = m !== null && (m[3] !== undefined || (m[1] !== undefined) === steps.length > 0);
    if (!ok) throw new BtfError(`bad member path '${path}' at position ${pos}`);
    steps.push(m[3] !== undefined ? Number(m[3]) : m[2]);
    pos = token.lastIndex;
  }
  return steps;
}

/**
 * Canonical GCC/pahole spelling of a C integer type name, or undefined when the
 * words are not an integer type: 'unsigned long' -> 'long unsigned int'.
 */
export function normalizeIntName(text: string): string | undefined {
  const words = text.trim().split(/\s+/);
  let longs = 0;
  let signedness: 'signed' | 'unsigned' | '' = '';
  let base: 'char' | 'short' | 'int' | '_Bool' | '__int128' | '' = '';
  let sawInt = false;
  for (const w of words) {
    if (w === 'long') longs++;
    else if (w === 'signed' || w === 'unsigned') {
      if (signedness) return undefined;
      signedness = w;
    } else if (w === 'int') {
      if (sawInt) return undefined;
      sawInt = true;
    } else if (w === 'char' || w === 'short' || w === '_Bool' || w === '__int128') {
      if (base) return undefined;
      base = w;
    } else return undefined;
  }
  if (longs > 2 || (longs > 0 && base !== '')) return undefined;
  if (base === 'char') return sawInt ? undefined : signedness ? `${signedness} char` : 'char';
  if (base === '_Bool') return sawInt || signedness ? undefined : '_Bool';
  if (base === '__int128') return sawInt ? undefined : signedness === 'unsigned' ? '__int128 unsigned' : '__int128';
  const u = signedness === 'unsigned' ? ' unsigned' : '';
  if (base === 'short') return `short${u} int`;
  if (longs === 1) return `long${u} int`;
  if (longs === 2) return `long long${u} int`;
  if (!sawInt && !signedness) return undefined;
  return signedness === 'unsigned' ? 'unsigned int' : 'int';
}

// ---- the running kernel's BTF ----


let kernelBtf: Btf | undefined;
const moduleBtfs = new Map<string, Btf>();

function readBtfFile(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const hint = err.code === 'ENOENT' ? ' (kernel built without CONFIG_DEBUG_INFO_BTF, or sysfs not mounted?)' : '';
    throw new BtfError(`cannot read BTF for ${what} from ${path}: ${err.code ?? err.message}${hint}`);
  }
}

/** The running kernel's BTF (/sys/kernel/btf/vmlinux), read and parsed once. */
export function loadKernelBtf(): Btf {
  if (!kernelBtf) kernelBtf = Btf.parse(readBtfFile(`${systemPaths.btfDir}/vmlinux`, 'the kernel'), { name: 'vmlinux' });
  return kernelBtf;
}

/** Names of the loaded modules that publish BTF (/sys/kernel/btf/<module>). */
export function listModuleBtf(): string[] {
  try {
    return readdirSync(systemPaths.btfDir).filter((n) => n !== 'vmlinux').sort();
  } catch {
    return [];
  }
}

/** A loaded module's split BTF, on top of the kernel's; read and parsed once per module. */
export function loadModuleBtf(module: string): Btf {
  if (module === 'vmlinux') return loadKernelBtf();
  if (!/^[\w-]+$/.test(module)) throw new BtfError(`invalid kernel module name '${module}'`);
  let btf = moduleBtfs.get(module);
  if (!btf) {
    const base = loadKernelBtf();
    btf = Btf.parse(readBtfFile(`${systemPaths.btfDir}/${module}`, `module '${module}'`), { base, name: module });
    moduleBtfs.set(module, btf);
  }
  return btf;
}
