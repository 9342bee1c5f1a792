// DTrace's printf format language as the compiler and the consumer share it: parsing a format,
// the conversion table, and checking a format against its arguments' types (dt_printf.c's rules;
// the compiler reports what fails, the consumer formats what passed -- src/consumer/printf.ts).

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

export type ConvClass =
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

export interface ConvInfo {
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
export const CONVERSIONS: Record<string, ConvInfo> = {
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
  i: { out: 'i', cls: 'dint', proto: P_XINT, check: 'xint' },
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
  // The consumer formats every record with its clause's format: parse each one once.
  let pieces = parsed.get(fmt);
  if (pieces) return pieces;
  pieces = parseFresh(fmt);
  if (parsed.size >= PARSED_MAX) parsed.clear();
  parsed.set(fmt, pieces);
  return pieces;
}

/** Parsed formats, shared and never modified by their users. */
const parsed = new Map<string, FormatPiece[]>();
const PARSED_MAX = 4096;

function parseFresh(fmt: string): FormatPiece[] {
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

// %lx wants C's long and %llx its long long: LP64 makes them the same size, but DTrace checks the
// spelling (int64_t and uint64_t pass both; the kernel's BTF spells long as `long int`).
const LONG_NAMES = new Set([
  'long', 'signed long', 'unsigned long', 'long int', 'long unsigned int',
  'intptr_t', 'uintptr_t', 'size_t', 'ssize_t', 'ptrdiff_t', 'ulong_t',
]);
const LONG_LONG_NAMES = new Set([
  'long long', 'signed long long', 'unsigned long long', 'long long int', 'long long unsigned int', 'u_longlong_t',
]);

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
      return isInteger(t) && t.size === 8 && !LONG_LONG_NAMES.has(t.name);
    case 'xlonglong':
      return isInteger(t) && t.size === 8 && !LONG_NAMES.has(t.name);
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
