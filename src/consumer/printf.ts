// DTrace's printf language: formatting decoded values exactly as libdtrace's dt_printf.c does on
// top of the C library's printf(3). Parsing and checking a format are src/abi/printf-format.ts.
//
// Facts followed (from dt_printf.c): the conversion table and its size
// prefixes; integers are formatted by the argument's own size, 1/2/4-byte
// values widened to 32 bits (sign-extended for signed conversions,
// zero-extended otherwise); %i is always signed and %d follows the
// argument's signedness (settled by the compiler, resolveSignedness); a
// precision of 0 (".0" or ".") is dropped; a negative '*' width means
// left-justify; %p is plain lowercase hex without "0x".

import { asSigned, asUnsigned, type Value } from './records.js';
import type { RecordDescription } from '../device/device.js';
import { CONVERSIONS, type ConvInfo, type Conversion, type FormatPiece, PrintfError, parseFormat } from '../abi/printf-format.js';

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
/**
 * The widest field and the largest precision printed, in characters. A '*' width comes from traced
 * data (printf("%*d", arg2, ...) of a read() count): one of 5.4e8 made a string longer than the
 * JavaScript engine holds and ended the session. Wider fields are cut to this.
 */
const MAX_FIELD = 1 << 24;

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
    const spec = specOf(conv, width, prec);

    let v: Value | undefined;
    if (conv.flags.agg) {
      const values = opts.aggValues ?? [];
      if (values.length === 0) throw new PrintfError(`%@ conversion #${conv.index} without an aggregation`);
      const av = values[Math.min(agg, values.length - 1)];
      agg++;
      if (av.kind === 'text') {
        out += av.text;
        continue;
      }
      // The value is formatted as the conversion's letter says: %@T a date, %@x hex, ...
      v = { kind: 'int', value: av.value, size: 8, signed: av.signed };
    } else {
      v = args[next++];
    }
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

/** A conversion's field, its width and precision (from '*' arguments or the format) bounded. */
function specOf(conv: Conversion, width: number, prec: number): Spec {
  width = Math.max(-MAX_FIELD, Math.min(MAX_FIELD, width));
  prec = Math.min(MAX_FIELD, prec);
  return {
    alt: conv.flags.alt,
    zeroPad: conv.flags.zeroPad,
    left: conv.flags.left || width < 0,
    plus: conv.flags.plus,
    space: conv.flags.space,
    width: Math.abs(width),
    prec: prec > 0 ? prec : -1,
  };
}

// ---------------------------------------------------------------------------
// Formats compiled once

/** A record's text made from its bytes: `buf` holds the record, its data from `base`. */
export type RecordPlan = (buf: Buffer, base: number) => string;

/**
 * printf() compiled for one enabled probe's records, when every conversion is an integer or a
 * string with a fixed field: the values are read straight from the record's bytes, numbers as
 * JavaScript numbers while they are exact, and what formatPrintf would print is made without
 * decoding values or parsing the format again. `args` are the records holding the arguments
 * (decode.ts printfArgs' rule). null: format it with formatPrintf, which also reports errors.
 */
export function planPrintf(fmt: string, args: RecordDescription[]): RecordPlan | null {
  let pieces: FormatPiece[];
  try {
    pieces = parseFormat(fmt);
  } catch {
    return null;
  }
  // The text before each conversion's value, the values, and the text after the last.
  const texts: string[] = [''];
  const values: RecordPlan[] = [];
  let next = 0;
  for (const piece of pieces) {
    if (piece.kind === 'text') {
      texts[texts.length - 1] += piece.text;
      continue;
    }
    const conv = piece.conv;
    const info = CONVERSIONS[conv.name];
    if (info.cls === 'pct') {
      texts[texts.length - 1] += '%';
      continue;
    }
    if (conv.flags.dynWidth || conv.flags.dynPrec || conv.flags.agg) return null;
    const r = args[next++];
    if (r === undefined) return null;
    const spec = specOf(conv, conv.width, conv.prec);
    const value = info.cls === 'cstr' ? planString(spec, r)
      : info.cls === 'sint' || info.cls === 'uint' || info.cls === 'dint' ? planInt(spec, info, r) : null;
    if (value === null) return null;
    values.push(value);
    texts.push('');
  }
  if (next !== args.length) return null;
  const head = texts[0];
  if (values.length === 0) return () => head;
  if (values.length === 1) {
    const [v0] = values, t1 = texts[1];
    return (buf, base) => head + v0(buf, base) + t1;
  }
  if (values.length === 2) {
    const [v0, v1] = values, [, t1, t2] = texts;
    return (buf, base) => head + v0(buf, base) + t1 + v1(buf, base) + t2;
  }
  return (buf, base) => {
    let out = head;
    for (let k = 0; k < values.length; k++) out += values[k](buf, base) + texts[k + 1];
    return out;
  };
}

function isPlain(spec: Spec): boolean {
  return !spec.alt && !spec.zeroPad && !spec.left && !spec.plus && !spec.space && spec.width === 0 && spec.prec < 0;
}

/** %s of a string record: its bytes up to the first NUL, as decode() and stringOf() read them. */
function planString(spec: Spec, r: RecordDescription): RecordPlan | null {
  if (r.type !== 'string' && r.type !== 'bytes') return null;
  const { offset, size } = r;
  const text = (buf: Buffer, base: number): string => {
    const at = base + offset, end = at + size;
    let nul = buf.indexOf(0, at);
    if (nul < 0 || nul > end) nul = end;
    return buf.toString('utf8', at, nul);
  };
  if (isPlain(spec)) return text;
  return (buf, base) => cString(spec, text(buf, base));
}

/** 2^21: a 64-bit value whose high word is below this (in magnitude) is an exact number. */
const EXACT_HIGH = 0x200000;

/**
 * An integer conversion of an integer record, as decode() and formatIntConv() do it: the
 * record's bytes read signed, then taken as a signed or unsigned value of its shown size.
 */
function planInt(spec: Spec, info: ConvInfo, r: RecordDescription): RecordPlan | null {
  if (r.type === 'string' || r.type === 'bytes' || info.out === 'c' || info.out === 'lc') return null;
  const { offset, size } = r;
  if (size !== 1 && size !== 2 && size !== 4 && size !== 8) return null;
  const shown = r.shown ?? size;
  const signed = info.cls === 'sint' || (info.cls === 'dint' && r.type !== 'uint');
  const conv = info.out === 'd' || info.out === 'i' ? (signed ? info.out : 'u') : info.out;
  const base = conv === 'o' ? 8 : conv === 'x' || conv === 'X' ? 16 : 10;
  const plain = isPlain(spec);
  const bits = shown * 8;
  const exact = (buf: Buffer, at: number): bigint => {
    const v = size === 1 ? BigInt(buf.readInt8(at)) : size === 2 ? BigInt(buf.readInt16LE(at))
      : size === 4 ? BigInt(buf.readInt32LE(at)) : buf.readBigInt64LE(at);
    return signed ? BigInt.asIntN(bits, v) : BigInt.asUintN(bits, v);
  };
  const digits = (n: number): string => {
    const d = n.toString(base);
    return conv === 'X' ? d.toUpperCase() : d;
  };
  const slow = (buf: Buffer, at: number): string => cInteger(spec, conv, exact(buf, at));
  if (!plain || shown !== size) return (buf, b) => slow(buf, b + offset);
  if (size === 8) {
    return (buf, b) => {
      const at = b + offset;
      const hi = buf.readInt32LE(at + 4);
      if (signed ? hi < EXACT_HIGH && hi >= -EXACT_HIGH : hi >= 0 && hi < EXACT_HIGH) return digits(hi * 4294967296 + buf.readUInt32LE(at));
      return slow(buf, at);
    };
  }
  if (signed) {
    // A signed read of the record's own size is the value itself.
    if (size === 4) return (buf, b) => digits(buf.readInt32LE(b + offset));
    if (size === 2) return (buf, b) => digits(buf.readInt16LE(b + offset));
    return (buf, b) => digits(buf.readInt8(b + offset));
  }
  if (size === 4) return (buf, b) => digits(buf.readUInt32LE(b + offset));
  if (size === 2) return (buf, b) => digits(buf.readUInt16LE(b + offset));
  return (buf, b) => digits(buf.readUInt8(b + offset));
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

