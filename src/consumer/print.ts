// print(): a traced value laid out by its type, as libdtrace's dt_print.c lays it out.
//
// Facts followed: every value is "type value", members one per line indented four spaces a
// level as "type name = value"; integers in hex ("%#x"), chars quoted ('a', '\0', '\ooo'),
// floats "%+.7e", pointers in hex, bit-fields with " :bits" after the name, arrays
// "[ a, b ]" (a char array holding a string as [ "text" ], bare "text" at the top),
// structs and unions "{" ... "}", enums by the name of value 0 (dt_print_enum reads no value).
// The type comes from the action's format (compiler/print.ts), not from the AST.

import type { StructNode, TypeDescriptor, TypeNode } from '../abi/print-schema.js';
import { PRINT_FORMAT_PREFIX } from '../abi/print-schema.js';
import { cFloat } from './printf.js';

export function isPrintFormat(format: string | undefined): format is string {
  return format !== undefined && format.startsWith(PRINT_FORMAT_PREFIX);
}

interface PrintArg {
  base: number; // byte offset in data of what is being printed
  depth: number;
  nest: number;
}

/** The text print() shows for one record's bytes. */
export function formatPrint(format: string, data: Buffer): string {
  const desc = JSON.parse(format.slice(PRINT_FORMAT_PREFIX.length)) as TypeDescriptor;
  const p = new Printer(desc, data);
  const pa: PrintArg = { base: 0, depth: 0, nest: 0 };
  p.visit(pa, '', desc.t, 0, 0, 0);
  p.trailingBraces(pa, 0);
  return p.out;
}

class Printer {
  out = '';
  constructor(private desc: TypeDescriptor, private data: Buffer) {}

  /** Visit a value and, for a struct or union, each member a level deeper. */
  visit(pa: PrintArg, name: string, t: TypeNode, off: number, bits: number, depth: number): void {
    this.member(pa, name, t, off, bits, depth);
    if (t.k !== 'struct') return;
    for (const [mn, mo, mb, mt] of this.struct(t).m) this.visit(pa, mn, mt, off + mo, mb, depth + 1);
  }

  private struct(t: { i: number }): StructNode {
    return this.desc.s[t.i];
  }

  trailingBraces(pa: PrintArg, depth: number): void {
    for (let d = pa.depth; d > depth; d--) this.out += ' '.repeat((d + pa.nest - 1) * 4) + '}' + (d === depth + 1 ? '' : '\n');
  }

  private indent(pa: PrintArg): void {
    this.out += ' '.repeat((pa.depth + pa.nest) * 4);
  }

  private member(pa: PrintArg, name: string, t: TypeNode, off: number, bits: number, depth: number): void {
    this.trailingBraces(pa, depth);
    if (depth < pa.depth) this.out += '\n';
    pa.depth = depth;
    const type = typeNameOf(t);
    const arrayMember = pa.nest !== 0 && depth === 0;
    const brief = arrayMember && t.k !== 'struct';
    if (!brief) {
      if (arrayMember) this.out += '\n';
      this.indent(pa);
      this.out += type;
      if (name !== '') {
        if (!type.endsWith('*') && !type.endsWith(' ')) this.out += ' ';
        this.out += name;
        if (t.k === 'int' && bits > 0 && (bits % 8 !== 0 || off % 8 !== 0 || bits !== t.z * 8)) this.out += ` :${bits}`;
        this.out += ' =';
      }
      this.out += ' ';
    }
    this.value(pa, t, off, bits);
    if (!brief) this.out += '\n';
  }

  private value(pa: PrintArg, t: TypeNode, off: number, bits: number): void {
    const at = pa.base + Math.floor(off / 8);
    switch (t.k) {
      case 'int': {
        const width = bits > 0 ? bits : t.z * 8;
        const size = width / 8;
        if (width % 8 !== 0 || size > 8 || (size & (size - 1)) !== 0 || (bits > 0 && off % 8 !== 0)) {
          this.out += hex(this.bitfield(at, off % 8, width));
          return;
        }
        if (t.c) {
          this.out += quotedChar(this.data.readInt8(at));
          return;
        }
        this.out += hex(this.unsigned(at, size));
        return;
      }
      case 'float': {
        const x = t.z === 4 ? this.data.readFloatLE(at) : this.data.readDoubleLE(at);
        this.out += cFloat({ alt: false, zeroPad: false, left: false, plus: true, space: false, width: 0, prec: 7 }, 'e', x);
        return;
      }
      case 'ptr':
      case 'func':
        this.out += hex(this.unsigned(at, 8));
        return;
      case 'string':
        this.array(pa, { k: 'int', n: 'char', z: 1, s: true, c: true }, t.z, 1, at);
        return;
      case 'array':
        this.array(pa, t.e, t.c, t.z, at);
        return;
      case 'struct':
        this.out += '{';
        return;
      case 'enum': {
        const zero = t.v.find(([, v]) => v === '0');
        this.out += zero ? zero[0] : '0';
        return;
      }
      case 'void':
        return;
    }
  }

  private array(pa: PrintArg, e: TypeNode, count: number, eltSize: number, at: number): void {
    const isChar = e.k === 'int' && e.c === true;
    let isString = false;
    if (isChar) {
      let i = 0;
      let c = 0;
      for (; i < count; i++) {
        c = this.data[at + i];
        if (!isPrint(c) || c === 0) break;
      }
      isString = i !== count && c === 0;
    }
    if (!isString || pa.depth !== 0) this.out += '[ ';
    if (isString) {
      const end = this.data.indexOf(0, at);
      this.out += '"' + this.data.toString('latin1', at, end) + '"';
    } else {
      for (let i = 0; i < count; i++) {
        const sub: PrintArg = { base: at + eltSize * i, depth: 0, nest: pa.nest + pa.depth + 1 };
        this.visit(sub, '', e, 0, 0, 0);
        this.trailingBraces(sub, 0);
        if (i !== count - 1) this.out += ', ';
        else if (e.k === 'struct') this.out += '\n';
      }
    }
    if (!isString || pa.depth !== 0) {
      if (e.k === 'struct') this.indent(pa);
      else this.out += ' ';
      this.out += ']';
    }
  }

  private unsigned(at: number, size: number): bigint {
    if (at + size > this.data.length) return 0n;
    switch (size) {
      case 1: return BigInt(this.data.readUInt8(at));
      case 2: return BigInt(this.data.readUInt16LE(at));
      case 4: return BigInt(this.data.readUInt32LE(at));
      default: return this.data.readBigUInt64LE(at);
    }
  }

  private bitfield(at: number, shift: number, width: number): bigint {
    const size = Math.ceil(width / 8);
    let v = 0n;
    for (let i = 0; i < size && i < 8; i++) v |= BigInt(this.data[at + i] ?? 0) << BigInt(8 * i);
    return (v >> BigInt(shift)) & ((1n << BigInt(width)) - 1n);
  }
}

function typeNameOf(t: TypeNode): string {
  switch (t.k) {
    case 'string': return 'string';
    case 'void': return 'void';
    default: return t.n;
  }
}

/** C's "%#x" of an unsigned value: 0 stays "0". */
function hex(v: bigint): string {
  return v === 0n ? '0' : '0x' + v.toString(16);
}

function isPrint(c: number): boolean {
  return c >= 0x20 && c <= 0x7e;
}

/** A char as dt_print_int quotes it; a negative char is promoted to int for "%03o". */
function quotedChar(c: number): string {
  if (c > 0 && isPrint(c)) return `'${String.fromCharCode(c)}'`;
  if (c === 0) return "'\\0'";
  return `'\\${(c >>> 0).toString(8).padStart(3, '0')}'`;
}
