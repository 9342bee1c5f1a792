// DTrace's printf language: parsing a format, checking it against argument
// types (for the compiler), and formatting decoded values exactly as
// libdtrace's dt_printf.c does on top of the C library's printf(3).
//
// Facts followed (from dt_printf.c): the conversion table and its size
// prefixes; integers are formatted by the argument's own size, 1/2/4-byte
// values widened to 32 bits (sign-extended for signed conversions,
// zero-extended otherwise); %i is always signed and %d follows the
// argument's signedness (settled by the compiler, resolveSignedness); a
// precision of 0 (".0" or ".") is dropped; a negative '*' width means
// left-justify; %p is plain lowercase hex without "0x".

import { asSigned, asUnsigned, type Value } from './records.js';

// ---------------------------------------------------------------------------
// Parsing

export interface ConversionFlags {
  alt: boolean; // '#'
  zeroPad: boolean; // '0'
  left: boolean; // '-'
  plus: boolean; // '+'
  space: boolean; // ' '
  group: boolean; // '\''
  agg: boolean; // '@' (printa: the aggregation value)
  dynWidth: boolean; // '*'
  dynPrec: boolean; // '.*'
}

export interface Conversion {
  /** 1-based position among the format's conversions, as DTrace counts them. */
  index: number;
  /** Conversion name with any size prefix: "d", "lld", "hx", "wc", "%". */
  name: string;
  flags: ConversionFlags;
  /** Field width; 0 when not given. */
  width: number;
  /** Precision; 0 when not given (DTrace cannot express an explicit .0). */
  prec: number;
  /** The conversion as written, e.g. "%-8.3s". */
  text: string;
}

export type FormatPiece = { kind: 'text'; text: string } | { kind: 'conv'; conv: Conversion };

export class PrintfError extends Error {
  /** DTrace's compiler error tag when there is one (D_PRINTF_*). */
  readonly tag: string | null;
  constructor(message: string, tag: string | null = null) {
    super(message);
    this.name = 'PrintfError';
    this.tag = tag;
  }
}

type ConvClass =
  | 'sint' // signed integer of the argument's size
  | 'uint' // unsigned integer of the argument's size
  | 'dint' // signed or unsigned following the argument
  | 'fp'
  | 'addr' // %a kernel symbol
  | 'uaddr' // %A user symbol
  | 'stack'
  | 'time' // %Y
  | 'time822' // %T
  | 'cstr'
  | 'estr' // %S
  | 'echr' // %C
  | 'wstr'
  | 'pct';

interface ConvInfo {
  /** The C conversion character used for output. */
  out: string;
  cls: ConvClass;
  /** The prototype named in type errors (pfc_tstr). */
  proto: string;
  /** What the argument must be (pfc_check). */
  check: ArgCheck;
}

type ArgCheck =
  | 'kaddr'
  | 'uaddr'
  | 'addr'
  | 'stack'
  | 'time'
  | 'str'
  | 'wstr'
  | 'csi'
  | 'fp'
  | 'xint'
  | 'dint'
  | 'xshort'
  | 'xlong'
  | 'xlonglong'
  | { type: 'int'; size: number; signed: boolean }
  | { type: 'float'; size: number }
  | 'none';

const P_XINT = 'char, short, int, long, or long long';
const P_CSI = 'char, short, or int';
const P_FP = 'float, double, or long double';
const P_ADDR = 'pointer or integer';
const P_UADDR = 'pointer or integer (with -p/-c) or _usymaddr (without -p/-c)';
const P_CSTR = 'char [] or string (or use stringof)';
const P_WSTR = 'wchar_t []';

const T_SHORT = { type: 'int', size: 2, signed: true } as const;
const T_USHORT = { type: 'int', size: 2, signed: false } as const;
const T_INT = { type: 'int', size: 4, signed: true } as const;
const T_LONG = { type: 'int', size: 8, signed: true } as const;
const T_ULONG = { type: 'int', size: 8, signed: false } as const;
const T_LDOUBLE = { type: 'float', size: 16 } as const;

/** dt_printf.c's conversion dictionary. */
const CONVERSIONS: Record<string, ConvInfo> = {
  a: { out: 's', cls: 'addr', proto: P_ADDR, check: 'kaddr' },
  A: { out: 's', cls: 'uaddr', proto: P_UADDR, check: 'uaddr' },
  c: { out: 'c', cls: 'sint', proto: P_CSI, check: 'csi' },
  C: { out: 's', cls: 'echr', proto: P_CSI, check: 'csi' },
  d: { out: 'd', cls: 'dint', proto: P_XINT, check: 'dint' },
  e: { out: 'e', cls: 'fp', proto: P_FP, check: 'fp' },
  E: { out: 'E', cls: 'fp', proto: P_FP, check: 'fp' },
  f: { out: 'f', cls: 'fp', proto: P_FP, check: 'fp' },
  g: { out: 'g', cls: 'fp', proto: P_FP, check: 'fp' },
  G: { out: 'G', cls: 'fp', proto: P_FP, check: 'fp' },
  hd: { out: 'd', cls: 'sint', proto: 'short', check: T_SHORT },
  hi: { out: 'i', cls: 'sint', proto: 'short', check: T_SHORT },
  ho: { out: 'o', cls: 'uint', proto: 'unsigned short', check: T_USHORT },
  hu: { out: 'u', cls: 'uint', proto: 'unsigned short', check: T_USHORT },
  hx: { out: 'x', cls: 'uint', proto: 'short', check: 'xshort' },
  hX: { out: 'X', cls: 'uint', proto: 'short', check: 'xshort' },
  i: { out: 'i', cls: 'sint', proto: P_XINT, check: 'xint' },
  k: { out: 's', cls: 'stack', proto: 'stack', check: 'stack' },
  lc: { out: 'lc', cls: 'sint', proto: 'int', check: T_INT },
  ld: { out: 'd', cls: 'sint', proto: 'long', check: T_LONG },
  li: { out: 'i', cls: 'sint', proto: 'long', check: T_LONG },
  lo: { out: 'o', cls: 'uint', proto: 'unsigned long', check: T_ULONG },
  lu: { out: 'u', cls: 'uint', proto: 'unsigned long', check: T_ULONG },
  ls: { out: 'ls', cls: 'wstr', proto: P_WSTR, check: 'wstr' },
  lx: { out: 'x', cls: 'uint', proto: 'long', check: 'xlong' },
  lX: { out: 'X', cls: 'uint', proto: 'long', check: 'xlong' },
  lld: { out: 'd', cls: 'sint', proto: 'long long', check: T_LONG },
  lli: { out: 'i', cls: 'sint', proto: 'long long', check: T_LONG },
  llo: { out: 'o', cls: 'uint', proto: 'unsigned long long', check: T_ULONG },
  llu: { out: 'u', cls: 'uint', proto: 'unsigned long long', check: T_ULONG },
  llx: { out: 'x', cls: 'uint', proto: 'long long', check: 'xlonglong' },
  llX: { out: 'X', cls: 'uint', proto: 'long long', check: 'xlonglong' },
  Le: { out: 'e', cls: 'fp', proto: 'long double', check: T_LDOUBLE },
  LE: { out: 'E', cls: 'fp', proto: 'long double', check: T_LDOUBLE },
  Lf: { out: 'f', cls: 'fp', proto: 'long double', check: T_LDOUBLE },
  Lg: { out: 'g', cls: 'fp', proto: 'long double', check: T_LDOUBLE },
  LG: { out: 'G', cls: 'fp', proto: 'long double', check: T_LDOUBLE },
  o: { out: 'o', cls: 'uint', proto: P_XINT, check: 'xint' },
  p: { out: 'x', cls: 'uint', proto: P_ADDR, check: 'addr' },
  s: { out: 's', cls: 'cstr', proto: P_CSTR, check: 'str' },
  S: { out: 's', cls: 'estr', proto: P_CSTR, check: 'str' },
  T: { out: 's', cls: 'time822', proto: 'int64_t', check: 'time' },
  u: { out: 'u', cls: 'uint', proto: P_XINT, check: 'xint' },
  wc: { out: 'lc', cls: 'sint', proto: 'int', check: T_INT },
  ws: { out: 'ls', cls: 'wstr', proto: P_WSTR, check: 'wstr' },
  x: { out: 'x', cls: 'uint', proto: P_XINT, check: 'xint' },
  X: { out: 'X', cls: 'uint', proto: P_XINT, check: 'xint' },
  Y: { out: 's', cls: 'time', proto: 'int64_t', check: 'time' },
  '%': { out: '%', cls: 'pct', proto: 'void', check: 'none' },
};

function emptyFlags(): ConversionFlags {
  return {
    alt: false,
    zeroPad: false,
    left: false,
    plus: false,
    space: false,
    group: false,
    agg: false,
    dynWidth: false,
    dynPrec: false,
  };
}

/**
 * Split a format into text and conversions following dt_printf_create's
 * rules (including its quirks: a '0' flag after '-' cancels '-'; "%?" is a
 * pointer-sized width of 16).  Throws PrintfError with DTrace's message.
 */
export function parseFormat(fmt: string): FormatPiece[] {
  const pieces: FormatPiece[] = [];
  let q = 0;
  let count = 0;
  for (;;) {
    const p0 = fmt.indexOf('%', q);
    if (p0 < 0) break;
    count++;
    if (p0 > q) pieces.push({ kind: 'text', text: fmt.slice(q, p0) });
    const flags = emptyFlags();
    let width = 0;
    let prec = 0;
    let dot = 0;
    let digits = 0;
    let name = '';
    let p = p0;
    for (;;) {
      p++;
      const c = p < fmt.length ? fmt[p] : '\0';
      if (c >= '0' && c <= '9') {
        if (dot === 0 && digits === 0 && c === '0') {
          flags.zeroPad = true;
          flags.left = false;
          continue;
        }
        let n = 0;
        while (p < fmt.length && fmt[p] >= '0' && fmt[p] <= '9') n = n * 10 + (fmt.charCodeAt(p++) - 48);
        p--;
        if (dot) prec = n;
        else width = n;
        digits++;
        continue;
      }
      if (c === '#') flags.alt = true;
      else if (c === '*') {
        if (dot ? flags.dynPrec : flags.dynWidth) {
          // dt_printf_create names "precision" in both cases.
          throw new PrintfError(
            `format conversion #${count} has more than one '*' specified for the output precision`,
          );
        }
        if (dot) flags.dynPrec = true;
        else flags.dynWidth = true;
      } else if (c === '+') flags.plus = true;
      else if (c === '-') {
        flags.left = true;
        flags.zeroPad = false;
      } else if (c === '.') {
        if (dot++ !== 0) throw new PrintfError(`format conversion #${count} has more than one '.' specified`);
        digits = 0;
      } else if (c === '?') width = 16;
      else if (c === '@') flags.agg = true;
      else if (c === "'") flags.group = true;
      else if (c === ' ') flags.space = true;
      else if (c === '$') {
        throw new PrintfError(`format conversion #${count} uses unsupported positional format (%n$)`);
      } else if (c === '%') {
        if (fmt[p - 1] === '%') {
          name += c;
          break;
        }
        throw new PrintfError(`format conversion #${count} cannot be combined with other format flags: %%`);
      } else if (c === '\0') {
        throw new PrintfError(`format conversion #${count} name expected before end of format string`);
      } else if (c === 'h' || c === 'l' || c === 'L' || c === 'w') {
        if (name.length < 6) name += c;
      } else {
        name += c;
        break;
      }
    }
    if (!(name in CONVERSIONS)) throw new PrintfError(`format conversion #${count} is undefined: %${name}`);
    pieces.push({
      kind: 'conv',
      conv: { index: count, name, flags, width, prec, text: fmt.slice(p0, p + 1) },
    });
    q = p + 1;
  }
  if (q < fmt.length) pieces.push({ kind: 'text', text: fmt.slice(q) });
  return pieces;
}

/**
 * How many argument values a format consumes: one per '*' width or
 * precision and one per value conversion (%% and %@ take none).
 */
export function countPrintfArgs(fmt: string | FormatPiece[]): number {
  const pieces = typeof fmt === 'string' ? parseFormat(fmt) : fmt;
  let n = 0;
  for (const piece of pieces) {
    if (piece.kind !== 'conv' || piece.conv.name === '%') continue;
    if (piece.conv.flags.dynWidth) n++;
    if (piece.conv.flags.dynPrec) n++;
    if (!piece.conv.flags.agg) n++;
  }
  return n;
}

// ---------------------------------------------------------------------------
// Type checking (for the compiler)

/** What the compiler knows about one printf argument. */
export interface ArgType {
  /** The D type name as DTrace prints it: "int", "char *", "string", "char [16]". */
  name: string;
  kind: 'integer' | 'float' | 'pointer' | 'string' | 'array' | 'struct' | 'stack' | 'void' | 'other';
  /** Size in bytes (for integers, floats and pointers). */
  size?: number;
  signed?: boolean;
  /** For arrays: the element type. */
  element?: ArgType;
  /** The integer is a kernel (_symaddr) or user (_usymaddr) symbol address. */
  symaddr?: 'kernel' | 'user';
  /** Typedef names this type was reached through, outermost first ("uint64_t"). */
  typedefs?: string[];
}

export interface ValidateOptions {
  /** The action's name for messages: "printf", "printa", "sprintf", "system"... */
  func?: string;
  /** Index of the first value argument minus one (1 for printf, whose format is #1). */
  argOffset?: number;
  /** Formatting an aggregation: %@ allowed. */
  aggregation?: boolean;
  /** The aggregating action for %@ (count gives uint64_t, all others int64_t). */
  aggAction?: string;
  /** printf: every argument must be consumed. */
  exactLength?: boolean;
  /** A target process is known (-p/-c): %A accepts any pointer or integer. */
  haveTarget?: boolean;
}

export interface PrintfDiagnostic {
  tag: string;
  message: string;
}

function isInteger(t: ArgType): boolean {
  return t.kind === 'integer';
}

function checkArg(check: ArgCheck, t: ArgType, opts: ValidateOptions): boolean {
  if (typeof check === 'object') {
    if (check.type === 'float') return t.kind === 'float' && t.size === check.size;
    return isInteger(t) && t.size === check.size && (t.signed ?? true) === check.signed;
  }
  switch (check) {
    case 'kaddr':
      return t.kind === 'pointer' || isInteger(t);
    case 'uaddr':
      if (t.symaddr === 'user') return true;
      return !!opts.haveTarget && (t.kind === 'pointer' || isInteger(t));
    case 'addr':
      return t.kind === 'pointer' || isInteger(t);
    case 'stack':
      return t.kind === 'stack';
    case 'time':
      return isInteger(t) && t.size === 8;
    case 'str':
      return t.kind === 'string' || (t.kind === 'array' && t.element?.kind === 'integer' && t.element.size === 1);
    case 'wstr':
      return t.kind === 'array' && t.element?.kind === 'integer' && t.element.size === 4;
    case 'csi':
      return isInteger(t) && (t.size ?? 8) <= 4;
    case 'fp':
      return t.kind === 'float';
    case 'xint':
    case 'dint':
      return isInteger(t);
    case 'xshort':
      return isInteger(t) && t.size === 2;
    case 'xlong':
      return isInteger(t) && t.size === 8 && !(t.typedefs ?? []).length;
    case 'xlonglong':
      return isInteger(t) && t.size === 8;
    case 'none':
      return true;
  }
}

/**
 * Check a format against the argument types as dt_printf_validate does.
 * Returns null when fine, else the tag and message DTrace reports (without
 * the trailing newline).  Format syntax errors (undefined conversion and
 * the like) are warnings plus a failed compile in DTrace, without a D_PRINTF
 * tag of their own; they come back tagged "D_SYNTAX".
 */
export function validateFormat(
  fmt: string,
  argTypes: ArgType[],
  opts: ValidateOptions = {},
): PrintfDiagnostic | null {
  const func = opts.func ?? 'printf';
  const foff = opts.argOffset ?? 1;
  if (fmt === '') return { tag: 'D_PRINTF_FMT_EMPTY', message: `${func}( ) format string is empty` };
  let pieces: FormatPiece[];
  try {
    pieces = parseFormat(fmt);
  } catch (e) {
    if (e instanceof PrintfError) return { tag: e.tag ?? 'D_SYNTAX', message: e.message };
    throw e;
  }
  const aggType: ArgType =
    opts.aggAction === 'count'
      ? { name: 'uint64_t', kind: 'integer', size: 8, signed: false }
      : { name: 'int64_t', kind: 'integer', size: 8, signed: true };
  let j = 0; // arguments consumed
  for (const piece of pieces) {
    if (piece.kind !== 'conv') continue;
    const conv = piece.conv;
    const info = CONVERSIONS[conv.name];
    if (info.cls === 'pct') continue;
    const dyns: string[] = [];
    if (conv.flags.dynPrec) dyns.push('.*');
    if (conv.flags.dynWidth) dyns.push('*');
    for (let d = dyns.length; d > 0; d--) {
      const t = argTypes[j];
      if (t === undefined) {
        return {
          tag: 'D_PRINTF_DYN_PROTO',
          message: `${func}( ) prototype mismatch: conversion #${conv.index} (%${conv.name}) is missing a corresponding "${dyns[d - 1]}" argument`,
        };
      }
      if (!isInteger(t)) {
        return {
          tag: 'D_PRINTF_DYN_TYPE',
          message:
            `${func}( ) argument #${j + foff + 1} is incompatible with conversion #${conv.index} prototype:\n` +
            `\tconversion: % ${dyns[d - 1]} ${conv.name}\n\t prototype: int\n\t  argument: ${t.name}`,
        };
      }
      j++;
    }
    let vname: string;
    let vt: ArgType;
    if (conv.flags.agg) {
      if (!opts.aggregation) {
        return {
          tag: 'D_PRINTF_AGG_CONV',
          message: `%@ conversion requires an aggregation and is not for use with ${func}( )`,
        };
      }
      vname = 'aggregating action';
      vt = aggType;
    } else {
      const t = argTypes[j];
      if (t === undefined) {
        return {
          tag: 'D_PRINTF_ARG_PROTO',
          message: `${func}( ) prototype mismatch: conversion #${conv.index} (%${conv.name}) is missing a corresponding value argument`,
        };
      }
      vname = `argument #${j + foff + 1}`;
      vt = t;
      j++;
    }
    if (!checkArg(info.check, vt, opts)) {
      return {
        tag: 'D_PRINTF_ARG_TYPE',
        message:
          `${func}( ) ${vname} is incompatible with conversion #${conv.index} prototype:\n` +
          `\tconversion: %${conv.name}\n\t prototype: ${info.proto}\n\t  argument: ${vt.name}`,
      };
    }
  }
  if (opts.exactLength && j < argTypes.length) {
    return {
      tag: 'D_PRINTF_ARG_EXTRA',
      message: `${func}( ) prototype mismatch: only ${j} arguments required by this format string`,
    };
  }
  return null;
}

/**
 * The format as the consumer must see it: each %d whose argument is unsigned
 * becomes %u, as DTrace's compile-time check rewrites the conversion by the
 * argument's signedness (a %d of a signed argument then reads it signed).
 * The record carries only the value's size, so the compiler settles this.
 */
export function resolveSignedness(fmt: string, argTypes: ArgType[]): string {
  let pieces: FormatPiece[];
  try {
    pieces = parseFormat(fmt);
  } catch {
    return fmt;
  }
  let j = 0;
  let out = '';
  for (const piece of pieces) {
    if (piece.kind === 'text') {
      out += piece.text;
      continue;
    }
    const conv = piece.conv;
    let text = conv.text;
    if (conv.name !== '%') {
      if (conv.flags.dynWidth) j++;
      if (conv.flags.dynPrec) j++;
      if (!conv.flags.agg) {
        const t = argTypes[j++];
        if (conv.name === 'd' && t && isInteger(t) && t.signed === false) text = text.slice(0, -1) + 'u';
      }
    }
    out += text;
  }
  return out;
}

// ---------------------------------------------------------------------------
// C printf(3) primitives

interface Spec {
  alt: boolean;
  zeroPad: boolean;
  left: boolean;
  plus: boolean;
  space: boolean;
  width: number;
  /** -1 when no precision. */
  prec: number;
}

function padField(spec: Spec, body: string, zeroInsertAt = 0): string {
  if (body.length >= spec.width) return body;
  const fill = spec.width - body.length;
  if (spec.left) return body + ' '.repeat(fill);
  if (spec.zeroPad) return body.slice(0, zeroInsertAt) + '0'.repeat(fill) + body.slice(zeroInsertAt);
  return ' '.repeat(fill) + body;
}

/** %d %i %u %o %x %X of an already-widened value. */
function cInteger(spec: Spec, conv: string, n: bigint): string {
  const signed = conv === 'd' || conv === 'i';
  const neg = n < 0n;
  const mag = neg ? -n : n;
  const base = conv === 'o' ? 8 : conv === 'x' || conv === 'X' ? 16 : 10;
  let digits = mag.toString(base);
  if (conv === 'X') digits = digits.toUpperCase();
  if (spec.prec >= 0) {
    if (spec.prec === 0 && mag === 0n) digits = '';
    digits = digits.padStart(spec.prec, '0');
  }
  let prefix = '';
  if (signed) prefix = neg ? '-' : spec.plus ? '+' : spec.space ? ' ' : '';
  if (spec.alt) {
    if (conv === 'o' && !digits.startsWith('0')) digits = '0' + digits;
    if ((conv === 'x' || conv === 'X') && mag !== 0n) prefix = conv === 'x' ? '0x' : '0X';
  }
  // A precision turns off zero padding for integers.
  const zs: Spec = spec.prec >= 0 ? { ...spec, zeroPad: false } : spec;
  return padField(zs, prefix + digits, prefix.length);
}

/** %s (and the string-producing DTrace conversions). */
function cString(spec: Spec, s: string): string {
  const body = spec.prec >= 0 ? s.slice(0, spec.prec) : s;
  return padField({ ...spec, zeroPad: false }, body);
}

/** %c of an int. */
function cChar(spec: Spec, code: number): string {
  return padField({ ...spec, zeroPad: false }, String.fromCharCode(code & 0xff));
}

/** %e/%f/%g family for a double. */
export function cFloat(spec: Spec, conv: string, x: number): string {
  const upper = conv === 'E' || conv === 'G';
  const neg = x < 0 || Object.is(x, -0);
  const ax = Math.abs(x);
  let body: string;
  if (!Number.isFinite(ax)) {
    body = Number.isNaN(ax) ? 'nan' : 'inf';
    if (upper) body = body.toUpperCase();
    const sign = neg && !Number.isNaN(x) ? '-' : spec.plus ? '+' : spec.space ? ' ' : '';
    return padField({ ...spec, zeroPad: false }, sign + body);
  }
  const p = spec.prec >= 0 ? spec.prec : 6;
  const lower = conv.toLowerCase();
  if (lower === 'f') body = fixed(ax, p, spec.alt);
  else if (lower === 'e') body = expo(ax, p, spec.alt);
  else {
    const P = p === 0 ? 1 : p;
    const X = ax === 0 ? 0 : exponentOf(ax, P - 1);
    if (P > X && X >= -4) body = fixed(ax, P - 1 - X, spec.alt);
    else body = expo(ax, P - 1, spec.alt);
    if (!spec.alt) body = stripZeros(body);
  }
  if (upper) body = body.toUpperCase();
  const sign = neg ? '-' : spec.plus ? '+' : spec.space ? ' ' : '';
  return padField(spec, sign + body, sign.length);
}

// The exact decimal value of a finite non-negative double: n / 10^scale.
function exactDecimal(ax: number): { n: bigint; scale: number } {
  if (ax === 0) return { n: 0n, scale: 0 };
  const b = Buffer.alloc(8);
  b.writeDoubleLE(ax);
  const bits = b.readBigUInt64LE(0);
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  let e: number;
  if (expBits === 0) e = -1074;
  else {
    mant |= 1n << 52n;
    e = expBits - 1075;
  }
  if (e >= 0) return { n: mant << BigInt(e), scale: 0 };
  return { n: mant * 5n ** BigInt(-e), scale: -e };
}

// n / 10^drop rounded to an integer, ties to even (the C library's rounding).
function roundDrop(n: bigint, drop: number): bigint {
  if (drop <= 0) return n * 10n ** BigInt(-drop);
  const d = 10n ** BigInt(drop);
  const q = n / d;
  const r = n % d;
  const twice = 2n * r;
  if (twice > d || (twice === d && q % 2n === 1n)) return q + 1n;
  return q;
}

/** %f digits of |x| with p decimals. */
function fixed(ax: number, p: number, alt: boolean): string {
  const { n, scale } = exactDecimal(ax);
  const digits = roundDrop(n, scale - p).toString().padStart(p + 1, '0');
  const int = digits.slice(0, digits.length - p);
  const frac = digits.slice(digits.length - p);
  return p > 0 ? `${int}.${frac}` : alt ? `${int}.` : int;
}

/** %e digits of |x| with p decimals, and the decimal exponent used. */
function expoParts(ax: number, p: number): { mant: string; exp: number } {
  if (ax === 0) return { mant: '0'.repeat(p + 1), exp: 0 };
  const { n, scale } = exactDecimal(ax);
  const len = n.toString().length;
  let exp = len - 1 - scale;
  let digits = roundDrop(n, len - (p + 1)).toString();
  if (digits.length > p + 1) {
    // Rounding carried into a new digit (9.99 -> 10.0).
    digits = digits.slice(0, p + 1);
    exp++;
  }
  return { mant: digits, exp };
}

function expo(ax: number, p: number, alt: boolean): string {
  const { mant, exp } = expoParts(ax, p);
  const head = mant.slice(0, 1) + (p > 0 ? '.' + mant.slice(1) : alt ? '.' : '');
  const sign = exp < 0 ? '-' : '+';
  return `${head}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
}

function exponentOf(ax: number, p: number): number {
  return expoParts(ax, p).exp;
}

function stripZeros(s: string): string {
  const e = s.search(/[eE]/);
  let mant = e >= 0 ? s.slice(0, e) : s;
  const rest = e >= 0 ? s.slice(e) : '';
  if (mant.includes('.')) mant = mant.replace(/0+$/, '').replace(/\.$/, '');
  return mant + rest;
}

// ---------------------------------------------------------------------------
// Formatting values

/** A symbol found for an address. */
export interface SymbolInfo {
  /** Module (object) name, e.g. "vmlinux" or "libc.so.6". */
  module: string;
  /** The symbol, when the address is inside one. */
  symbol?: { name: string; value: bigint };
}

/** Looks an address up; undefined when nothing is known about it. */
export type SymbolLookup = (addr: bigint, pid?: bigint) => SymbolInfo | undefined;

export interface PrintfOptions {
  /** Kernel symbols for %a and %k. */
  kernelSymbols?: SymbolLookup;
  /** User symbols for %A. */
  userSymbols?: SymbolLookup;
  /** The target pid (-p/-c) used by %A when the value carries none. */
  targetPid?: bigint;
  /** Indentation of stack frames for %k (the stackindent option); default 14. */
  stackIndent?: number;
  /** printa(): the aggregation value for %@ conversions, in order. */
  aggValues?: AggFormatValue[];
}

/**
 * An aggregation's value as %@ sees it: an integer (count, sum, min, max,
 * and avg/stddev already reduced), or a preformatted table (quantize family,
 * which ignores the conversion).
 */
export type AggFormatValue = { kind: 'int'; value: bigint; signed: boolean } | { kind: 'text'; text: string };

/** Format symbolic address text as dtrace_addr2str / dtrace_uaddr2str do. */
export function addrToString(addr: bigint, lookup?: SymbolLookup, pid?: bigint): string {
  const info = lookup?.(addr, pid);
  if (info?.symbol) {
    if (addr !== info.symbol.value) return `${info.module}\`${info.symbol.name}+0x${(addr - info.symbol.value).toString(16)}`;
    return `${info.module}\`${info.symbol.name}`;
  }
  if (info) return `${info.module}\`0x${addr.toString(16)}`;
  return `0x${addr.toString(16)}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** %Y: ctime(3) reordered to "2026 Nov 22 04:05:06" (local time, day space-padded). */
export function formatWalltime(ns: bigint): string {
  const d = new Date(Number(ns / 1_000_000_000n) * 1000);
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${d.getFullYear()} ${MONTHS[d.getMonth()]} ${String(d.getDate()).padStart(2, ' ')} ` +
    `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`
  );
}

/** %T: strftime "%a, %d %b %G %T %Z" in local time (note %G, the ISO week year). */
export function formatRfc822(ns: bigint): string {
  const d = new Date(Number(ns / 1_000_000_000n) * 1000);
  const two = (n: number) => String(n).padStart(2, '0');
  const zone =
    new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' }).formatToParts(d).find((p) => p.type === 'timeZoneName')
      ?.value ?? '';
  return (
    `${DAYS[d.getDay()]}, ${two(d.getDate())} ${MONTHS[d.getMonth()]} ${isoWeekYear(d)} ` +
    `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())} ${zone}`
  );
}

function isoWeekYear(d: Date): number {
  // The ISO year is the year of the Thursday of the date's week.
  const t = new Date(d.getFullYear(), d.getMonth(), d.getDate());
  const dow = (t.getDay() + 6) % 7; // Monday = 0
  t.setDate(t.getDate() - dow + 3);
  return t.getFullYear();
}

/** The C escape form used by %S and %C (strchr2esc). */
export function escapeString(bytes: Buffer): string {
  let out = '';
  for (const c of bytes) {
    switch (c) {
      case 0:
        out += '\\0';
        break;
      case 7:
        out += '\\a';
        break;
      case 8:
        out += '\\b';
        break;
      case 12:
        out += '\\f';
        break;
      case 10:
        out += '\\n';
        break;
      case 13:
        out += '\\r';
        break;
      case 9:
        out += '\\t';
        break;
      case 11:
        out += '\\v';
        break;
      case 0x22:
        out += '\\"';
        break;
      case 0x5c:
        out += '\\\\';
        break;
      default:
        if (c === 0x20 || (c >= 0x21 && c <= 0x7e)) out += String.fromCharCode(c);
        else out += '\\' + c.toString(8).padStart(3, '0');
    }
  }
  return out;
}

function needInt(v: Value | undefined, conv: Conversion): Extract<Value, { kind: 'int' }> {
  if (v === undefined) throw new PrintfError(`conversion #${conv.index} (%${conv.name}) has no argument`);
  if (v.kind !== 'int') throw new PrintfError(`conversion #${conv.index} (%${conv.name}) needs an integer argument`);
  return v;
}

/** The bytes of a string-like value up to its NUL. */
function stringOf(v: Value | undefined, conv: Conversion): string {
  if (v === undefined) throw new PrintfError(`conversion #${conv.index} (%${conv.name}) has no argument`);
  if (v.kind === 'string') return v.value;
  if (v.kind === 'bytes') {
    const end = v.value.indexOf(0);
    return v.value.subarray(0, end < 0 ? v.value.length : end).toString('utf8');
  }
  throw new PrintfError(`conversion #${conv.index} (%${conv.name}) needs a string argument`);
}

// sint: 1/2/4-byte values become int32 (sign-extended); uint: uint32
// (zero-extended); 8-byte values stay 64-bit.
function widenSigned(v: { value: bigint; size: number }): bigint {
  return asSigned(v);
}
function widenUnsigned(v: { value: bigint; size: number }): bigint {
  return asUnsigned(v);
}

/** getint: a '*' argument read as a C int. */
function dynInt(v: Value | undefined, conv: Conversion): number {
  const iv = needInt(v, conv);
  return Number(BigInt.asIntN(32, asSigned(iv)));
}

function floatOf(v: Value | undefined, conv: Conversion): number {
  const iv = v?.kind === 'bytes' ? v : needInt(v, conv);
  if (iv.kind === 'bytes') {
    if (iv.value.length === 4) return iv.value.readFloatLE(0);
    if (iv.value.length === 8) return iv.value.readDoubleLE(0);
    throw new PrintfError(`conversion #${conv.index} (%${conv.name}): unsupported floating-point size`);
  }
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(asUnsigned(iv));
  if (iv.size === 4) return b.readFloatLE(0);
  if (iv.size === 8) return b.readDoubleLE(0);
  throw new PrintfError(`conversion #${conv.index} (%${conv.name}): unsupported floating-point size`);
}

function wideString(v: Value | undefined, conv: Conversion): string {
  if (v?.kind === 'string') return v.value;
  if (v?.kind === 'bytes') {
    let s = '';
    for (let i = 0; i + 4 <= v.value.length; i += 4) {
      const cp = v.value.readUInt32LE(i);
      if (cp === 0) break;
      s += String.fromCodePoint(cp);
    }
    return s;
  }
  throw new PrintfError(`conversion #${conv.index} (%${conv.name}) needs a wide string argument`);
}

/** %k: dt_print_stack with the conversion's own format per frame. */
function formatStackConv(v: Value | undefined, conv: Conversion, spec: Spec, dynWidth: number | null, opts: PrintfOptions): string {
  if (v?.kind !== 'bytes') throw new PrintfError(`conversion #${conv.index} (%k) needs a stack argument`);
  // A left-justified field sets the indentation instead of the field width.
  let indent: number;
  if (dynWidth !== null && dynWidth < 0) indent = -dynWidth;
  else if (conv.flags.left) indent = dynWidth ? dynWidth : conv.width;
  else indent = opts.stackIndent ?? 14;
  const frameSpec: Spec = conv.flags.left ? { ...spec, width: 0 } : spec;
  let out = '\n';
  // Stack keys come with their frames already symbolized (user stacks against their process).
  if (v.frames) {
    for (const f of v.frames) out += ' '.repeat(indent) + cString(frameSpec, f) + '\n';
    return out;
  }
  for (let i = 0; i + 8 <= v.value.length; i += 8) {
    const pc = v.value.readBigUInt64LE(i);
    if (pc === 0n) break;
    out += ' '.repeat(indent) + cString(frameSpec, addrToString(pc, opts.kernelSymbols)) + '\n';
  }
  return out;
}

/**
 * Format `args` with a DTrace printf format.  Arguments are consumed in
 * order: '*' widths and precisions first, then the value; %@ conversions take
 * the next entry of opts.aggValues (the last one repeats) instead.
 */
export function formatPrintf(fmt: string | FormatPiece[], args: Value[], opts: PrintfOptions = {}): string {
  const pieces = typeof fmt === 'string' ? parseFormat(fmt) : fmt;
  let out = '';
  let next = 0;
  let agg = 0;
  for (const piece of pieces) {
    if (piece.kind === 'text') {
      out += piece.text;
      continue;
    }
    const conv = piece.conv;
    const info = CONVERSIONS[conv.name];
    if (info.cls === 'pct') {
      out += '%';
      continue;
    }
    let width = conv.width;
    let prec = conv.prec;
    let dynWidth: number | null = null;
    if (conv.flags.dynWidth) {
      width = dynInt(args[next++], conv);
      dynWidth = width;
    }
    if (conv.flags.dynPrec) prec = dynInt(args[next++], conv);
    const spec: Spec = {
      alt: conv.flags.alt,
      zeroPad: conv.flags.zeroPad,
      left: conv.flags.left || width < 0,
      plus: conv.flags.plus,
      space: conv.flags.space,
      width: Math.abs(width),
      prec: prec > 0 ? prec : -1,
    };

    if (conv.flags.agg) {
      const values = opts.aggValues ?? [];
      if (values.length === 0) throw new PrintfError(`%@ conversion #${conv.index} without an aggregation`);
      const av = values[Math.min(agg, values.length - 1)];
      agg++;
      if (av.kind === 'text') {
        out += av.text;
        continue;
      }
      out += formatIntConv(spec, info, { kind: 'int', value: av.value, size: 8, signed: av.signed });
      continue;
    }

    const v = args[next++];
    switch (info.cls) {
      case 'sint':
      case 'uint':
      case 'dint':
        out += formatIntConv(spec, info, needInt(v, conv));
        break;
      case 'fp':
        out += cFloat(spec, info.out, floatOf(v, conv));
        break;
      case 'cstr':
        out += cString(spec, stringOf(v, conv));
        break;
      case 'estr': {
        const s = v?.kind === 'bytes' ? v.value : Buffer.from(stringOf(v, conv), 'utf8');
        out += cString(spec, escapeString(s));
        break;
      }
      case 'echr': {
        const iv = needInt(v, conv);
        out += cString(spec, escapeString(Buffer.from([Number(BigInt.asUintN(8, iv.value))])));
        break;
      }
      case 'wstr':
        out += cString(spec, wideString(v, conv));
        break;
      case 'addr': {
        const iv = needInt(v, conv);
        out += cString(spec, addrToString(asUnsigned(iv), opts.kernelSymbols));
        break;
      }
      case 'uaddr': {
        let pid = opts.targetPid ?? 0n;
        let pc: bigint;
        if (v?.kind === 'bytes' && v.value.length === 16) {
          pid = v.value.readBigUInt64LE(0) || pid;
          pc = v.value.readBigUInt64LE(8);
        } else pc = asUnsigned(needInt(v, conv));
        out += cString(spec, addrToString(pc, opts.userSymbols, pid));
        break;
      }
      case 'time':
        out += cString(spec, formatWalltime(asUnsigned(needInt(v, conv))));
        break;
      case 'time822':
        out += cString(spec, formatRfc822(asUnsigned(needInt(v, conv))));
        break;
      case 'stack':
        out += formatStackConv(v, conv, spec, dynWidth, opts);
        break;
    }
  }
  return out;
}

function formatIntConv(spec: Spec, info: ConvInfo, v: Extract<Value, { kind: 'int' }>): string {
  const signed = info.cls === 'sint' || (info.cls === 'dint' && v.signed);
  const n = signed ? widenSigned(v) : widenUnsigned(v);
  if (info.out === 'c') return cChar(spec, Number(BigInt.asUintN(8, n)));
  if (info.out === 'lc') return padField({ ...spec, zeroPad: false }, String.fromCodePoint(Number(BigInt.asUintN(21, n))));
  // %d of an unsigned argument is printed as %u (pfcheck_dint).
  const out = info.out === 'd' || info.out === 'i' ? (signed ? info.out : 'u') : info.out;
  return cInteger(spec, out, n);
}

/** Exposed for aggprint: format one integer with a C-style conversion. */
export function formatCInteger(
  conv: 'd' | 'u' | 'x' | 'X' | 'o',
  n: bigint,
  opts: { width?: number; left?: boolean; zeroPad?: boolean } = {},
): string {
  return cInteger(
    { alt: false, zeroPad: !!opts.zeroPad, left: !!opts.left, plus: false, space: false, width: opts.width ?? 0, prec: -1 },
    conv,
    n,
  );
}

