// print(): what a pointer points to, laid out as DTrace for Linux lays it out (libbpf's
// btf_dump of typed data): a line "ADDR = *", then the value indented 44 columns, one more a
// level: "(type)value," for a scalar, "(type) {" ... "}" for a struct or union with one
// ".member = (type)value," a line, "(type) [" ... "]," for an array with one element a line.
// Members and elements whose bytes are all zero are left out, and a char array's chars from its
// first NUL on ("[" and "]," alone when that is the first but others are not zero). printsize (rounded up to 8 bytes) bounds the bytes shown: the first item that
// does not fit is shown as "..." and the open structs are closed (the closing line of a struct
// that ended just before comes after the "...", as there). The type comes from the action's
// format (compiler/print.ts), not from the AST.

import type { StructNode, TypeDescriptor, TypeNode } from '../abi/print-schema.js';
import { PRINT_ADDRESS_FORMAT, PRINT_FORMAT_PREFIX } from '../abi/print-schema.js';

export function isPrintFormat(format: string | undefined): format is string {
  return format !== undefined && format.startsWith(PRINT_FORMAT_PREFIX);
}

/** The column the value starts at, under its address line. */
const BASE_INDENT = 44;

const CHAR: TypeNode = { k: 'int', n: 'char', z: 1, s: true, c: true };

/** The text print() shows for one of its records; printsize bounds the bytes shown. */
export function formatPrint(format: string, data: Buffer, printsize?: number): string {
  if (format === PRINT_ADDRESS_FORMAT) return `0x${unsigned(data, 0, Math.min(8, data.length)).toString(16)} = *\n`;
  const desc = JSON.parse(format.slice(PRINT_FORMAT_PREFIX.length)) as TypeDescriptor;
  const limit = printsize === undefined ? data.length : Math.min(data.length, Math.ceil(printsize / 8) * 8);
  const p = new Printer(desc, data, limit);
  try {
    p.value(desc.t, 0, 0, 0, '', true);
  } catch (e) {
    if (!(e instanceof Truncated)) throw e;
    p.truncated(e.depth);
  }
  return p.out;
}

/** The first item that does not fit in printsize, at its depth. */
class Truncated {
  constructor(readonly depth: number) {}
}

class Printer {
  out = '';
  /** How many structs are open. */
  private open = 0;
  /** Closing lines of structs already complete, written before the next line. */
  private pending = '';

  constructor(private desc: TypeDescriptor, private data: Buffer, private limit: number) {}

  private line(depth: number, text: string): void {
    this.out += this.pending + ' '.repeat(BASE_INDENT + depth) + text + '\n';
    this.pending = '';
  }

  truncated(depth: number): void {
    this.out += ' '.repeat(BASE_INDENT + depth) + '...\n' + this.pending;
    this.pending = '';
    for (let d = this.open - 1; d >= 0; d--) this.out += ' '.repeat(BASE_INDENT + d) + (d === 0 ? '}' : '},') + '\n';
  }

  private struct(t: { i: number }): StructNode {
    return this.desc.s[t.i];
  }

  /** Print one value (a member when named, an array element when not) unless it is all zero. */
  value(t: TypeNode, bitOff: number, bits: number, depth: number, name: string, top = false): void {
    if (!top && this.isZero(t, bitOff, bits, depth)) return;
    const prefix = (name !== '' ? `.${name} = ` : '') + `(${typeNameOf(t)})`;
    const at = Math.floor(bitOff / 8);
    switch (t.k) {
      case 'struct': {
        this.line(depth, prefix + ' {');
        this.open = depth + 1;
        for (const [mn, mo, mb, mt] of this.struct(t).m) this.value(mt, bitOff + mo, mb, depth + 1, mn);
        this.open = depth;
        if (top) this.line(depth, '}');
        else this.pending += ' '.repeat(BASE_INDENT + depth) + '},\n';
        return;
      }
      case 'array':
      case 'string': {
        const e = t.k === 'array' ? t.e : CHAR;
        const count = t.k === 'array' ? t.c : t.z;
        const size = t.k === 'array' ? t.z : 1;
        this.line(depth, prefix + ' [');
        for (let i = 0; i < count; i++) {
          if (isChar(e) && this.data[at + i] === 0) break;
          this.value(e, (at + i * size) * 8, 0, depth + 1, '');
        }
        this.line(depth, top ? ']' : '],');
        return;
      }
      default:
        this.fits(t, at, bits, depth);
        this.line(depth, prefix + this.scalar(t, at, bitOff % 8, bits) + ',');
    }
  }

  /** A scalar's bytes must lie within printsize. */
  private fits(t: TypeNode, at: number, bits: number, depth: number): void {
    const size = bits > 0 ? Math.ceil(bits / 8) : scalarSize(t);
    if (at + size > this.limit) throw new Truncated(depth);
  }

  /** Are all of a value's bytes zero (reading its scalars in order, each within printsize)? */
  private isZero(t: TypeNode, bitOff: number, bits: number, depth: number): boolean {
    const at = Math.floor(bitOff / 8);
    switch (t.k) {
      case 'struct':
        return this.struct(t).m.every(([, mo, mb, mt]) => this.isZero(mt, bitOff + mo, mb, depth));
      case 'array':
      case 'string': {
        const e = t.k === 'array' ? t.e : CHAR;
        const count = t.k === 'array' ? t.c : t.z;
        const size = t.k === 'array' ? t.z : 1;
        for (let i = 0; i < count; i++) if (!this.isZero(e, (at + i * size) * 8, 0, depth)) return false;
        return true;
      }
      case 'void':
        return true;
      default:
        this.fits(t, at, bits, depth);
        return bits > 0 ? this.bitfield(at, bitOff % 8, bits) === 0n : unsigned(this.data, at, scalarSize(t)) === 0n;
    }
  }

  private scalar(t: TypeNode, at: number, shift: number, bits: number): string {
    switch (t.k) {
      case 'int': {
        if (bits > 0 && (bits !== t.z * 8 || shift !== 0)) {
          const v = this.bitfield(at, shift, bits);
          return (t.s && (v >> BigInt(bits - 1)) !== 0n ? v - (1n << BigInt(bits)) : v).toString();
        }
        if (t.c) return `'${String.fromCharCode(this.data[at])}'`;
        const u = unsigned(this.data, at, t.z);
        return (t.s ? BigInt.asIntN(t.z * 8, u) : u).toString();
      }
      case 'float':
        return String(t.z === 4 ? this.data.readFloatLE(at) : this.data.readDoubleLE(at));
      case 'enum': {
        const v = BigInt.asIntN(32, unsigned(this.data, at, 4)).toString();
        const name = t.v.find(([, x]) => x === v);
        return name ? name[0] : v;
      }
      default:
        return '0x' + unsigned(this.data, at, 8).toString(16);
    }
  }

  private bitfield(at: number, shift: number, width: number): bigint {
    const size = Math.ceil((shift + width) / 8);
    let v = 0n;
    for (let i = 0; i < size; i++) v |= BigInt(this.data[at + i] ?? 0) << BigInt(8 * i);
    return (v >> BigInt(shift)) & ((1n << BigInt(width)) - 1n);
  }
}

function isChar(t: TypeNode): boolean {
  return t.k === 'int' && t.c === true;
}

function scalarSize(t: TypeNode): number {
  switch (t.k) {
    case 'int': case 'float': return t.z;
    case 'enum': return 4;
    default: return 8;
  }
}

/** Little-endian bytes as an unsigned value; bytes past the record read as zero. */
function unsigned(data: Buffer, at: number, size: number): bigint {
  let v = 0n;
  for (let i = 0; i < size; i++) v |= BigInt(data[at + i] ?? 0) << BigInt(8 * i);
  return v;
}

/** A type as DTrace for Linux names it there; an anonymous struct or union is "struct"/"union". */
function typeNameOf(t: TypeNode): string {
  switch (t.k) {
    case 'string': return 'string';
    case 'void': return 'void';
    default: return t.n.trimEnd();
  }
}

/** The printsize option's bytes, if set. */
export function printSize(options: Map<string, string> | undefined): number | undefined {
  const v = options?.get('printsize');
  if (v === undefined || v === 'unset') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}
