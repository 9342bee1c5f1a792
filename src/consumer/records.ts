// The consumer's value model and the default (non-printf) record output of
// dtrace(1): the column header, the per-record probe prefix and trace().
//
// Layout facts follow illumos dtrace(1M) (cmd/dtrace/dtrace.c: chew, chewrec)
// and libdtrace dt_consume.c (dt_consume_cpu, dt_print_bytes).

import { optionDefault } from '../options.js';

/** A decoded datum from a trace record or an aggregation key. */
export type Value =
  // `shown`: how a sym() or mod() key prints (consumer/stacks.ts)
  | { kind: 'int'; value: bigint; size: 1 | 2 | 4 | 8; signed: boolean; shown?: string }
  | { kind: 'string'; value: string }
  // structs, arrays, tracemem; for stack and symbol records (consumer/stacks.ts) `shown` is how the
  // record prints and `frames` the text of each stack frame
  | { kind: 'bytes'; value: Buffer; shown?: string; frames?: string[] };

/** Convenience constructors. */
export function intValue(value: bigint | number, size: 1 | 2 | 4 | 8 = 8, signed = true): Value {
  return { kind: 'int', value: BigInt(value), size, signed };
}
export function stringValue(value: string): Value {
  return { kind: 'string', value };
}
export function bytesValue(value: Buffer): Value {
  return { kind: 'bytes', value };
}

/** The value's bits as an unsigned number of its own size. */
export function asUnsigned(v: { value: bigint; size: number }): bigint {
  return BigInt.asUintN(v.size * 8, v.value);
}

/** The value's bits as a signed number of its own size. */
export function asSigned(v: { value: bigint; size: number }): bigint {
  return BigInt.asIntN(v.size * 8, v.value);
}

/** Right-align (width > 0) or left-align (width < 0) like printf's %*s. */
export function pad(s: string, width: number): string {
  if (width < 0) return s.padEnd(-width, ' ');
  return s.padStart(width, ' ');
}

/** Default strsize: string records are this many bytes, NUL padded. */
export const DEFAULT_STRSIZE = Number(optionDefault('strsize'));

/** The heading dtrace prints before the first record unless quiet. */
export function probeHeader(): string {
  return `${pad('CPU', 3)} ${pad('ID', 6)} ${pad('FUNCTION:NAME', 32)}\n`;
}

/** The start of each record line when not quiet: "%3d %6d %32s ". */
export function recordPrefix(cpu: number, probeId: number, func: string, name: string): string {
  return `${pad(String(cpu), 3)} ${pad(String(probeId), 6)} ${pad(`${func}:${name}`, 32)} `;
}

/** A fleet's drop report names its instance once, before DTrace's words: "dtrace: [b] 3 drops on CPU 0". */
export function dropInstance(instance: string | undefined): string {
  return instance === undefined ? '' : `[${instance}] `;
}

/** What ends a record: a newline unless quiet (also the whole default action). */
export function recordEnd(quiet: boolean): string {
  return quiet ? '' : '\n';
}

export interface TraceOptions {
  quiet?: boolean;
  /** Record size for string values (the strsize option). */
  strsize?: number;
  /** -x rawbytes: strings and other byte records always as a hex dump. */
  rawbytes?: boolean;
}

/**
 * trace() of one value, as appended after the record prefix.  Integers are
 * printed in a field by record size (" %3d", " %5d", " %10d", " %19lld", as DTrace for Linux
 * widens illumos' " %8d" and " %16lld"; bare
 * when quiet), signed or unsigned as their type is, as DTrace for Linux prints
 * them (trace((int8_t)-1) is -1, trace((uint64_t)-1) 18446744073709551615).  Strings and other byte records go through the
 * string-or-hex-dump logic of dt_print_bytes with a field of -33.
 */
export function formatTraceValue(v: Value, opts: TraceOptions = {}): string {
  const quiet = opts.quiet ?? false;
  switch (v.kind) {
    case 'int': {
      const n = v.signed ? asSigned(v) : asUnsigned(v);
      if (quiet) return n.toString();
      const width = { 1: 3, 2: 5, 4: 10, 8: 19 }[v.size];
      return ' ' + pad(n.toString(), width);
    }
    case 'string':
      // An empty string prints as one in DTrace for Linux (dt_print_bytes alone would dump it).
      if (v.value === '' && !opts.rawbytes) return quiet ? '' : '  ' + pad('', -33);
      return formatBytes(stringRecord(v.value, opts.strsize), -33, quiet, opts.rawbytes ?? false);
    case 'bytes':
      return formatBytes(v.value, -33, quiet, opts.rawbytes ?? false);
  }
}

/** tracemem(): always the hex dump, never the string form. */
export function formatTracemem(data: Buffer, quiet = false): string {
  return formatBytes(data, -33, quiet, true);
}

/** The bytes of a string record as the device lays it out: the string, NUL padded to strsize + 1. */
export function stringRecord(s: string, strsize = DEFAULT_STRSIZE): Buffer {
  const text = Buffer.from(s, 'utf8');
  const buf = Buffer.alloc(Math.max(strsize, text.length) + 1);
  text.copy(buf);
  return buf;
}

// C-locale isprint(), isspace(), plus backspace and bell: what dt_print_bytes
// accepts as text.
function printableForString(b: number): boolean {
  return (b >= 0x20 && b <= 0x7e) || (b >= 0x09 && b <= 0x0d) || b === 0x08 || b === 0x07;
}

/**
 * dt_print_bytes: a byte range that is printable text followed by only NULs
 * (at least one text byte) prints as a string; all-printable without a NUL
 * also prints as a string; anything else prints as a hex/ASCII dump.
 * `width` is the string field (-33 for trace(), -50 for aggregation keys).
 */
export function formatBytes(data: Buffer, width: number, quiet: boolean, forceRaw: boolean): string {
  if (data.length === 0) return '';
  if (!forceRaw) {
    let i = 0;
    while (i < data.length && printableForString(data[i])) i++;
    if (i === data.length) {
      // All printable, no terminator.
      return '  ' + pad(data.toString('latin1'), -Math.abs(width));
    }
    if (data[i] === 0 && i > 0) {
      let j = i + 1;
      while (j < data.length && data[j] === 0) j++;
      if (j === data.length) {
        const s = decodeText(data.subarray(0, i));
        if (quiet) return s;
        return ' ' + (width < 0 ? ' ' : '') + pad(s, width);
      }
    }
  }
  return hexDump(data);
}

// Text bytes here are all ASCII (printableForString), so latin1 is exact.
function decodeText(b: Buffer): string {
  return b.toString('latin1');
}

/** The raw dump of dt_print_bytes: a column header then 16 bytes a line. */
export function hexDump(data: Buffer): string {
  const margin = ' '.repeat(5);
  let out = '\n' + margin + '      ';
  for (let i = 0; i < 16; i++) out += '  ' + '0123456789abcdef'[i];
  out += '  0123456789abcdef\n';
  for (let i = 0; i < data.length; i += 16) {
    out += margin + pad(i.toString(16), 5) + ':';
    let j = i;
    for (; j < i + 16 && j < data.length; j++) out += ' ' + data[j].toString(16).padStart(2, '0');
    for (; j % 16 !== 0; j++) out += '   ';
    out += '  ';
    for (j = i; j < i + 16 && j < data.length; j++) {
      const c = data[j];
      // dt_print_bytes tests a signed char: bytes >= 0x80 are "< ' '".
      out += c < 0x20 || c > 0x7e ? '.' : String.fromCharCode(c);
    }
    out += '\n';
  }
  return out;
}

/**
 * One whole record line as dtrace prints it when not quiet: prefix, each
 * traced value, newline.  With no values this is the default action's line.
 */
export function formatRecordLine(
  cpu: number,
  probeId: number,
  func: string,
  name: string,
  values: Value[],
  opts: TraceOptions = {},
): string {
  const quiet = opts.quiet ?? false;
  let out = quiet ? '' : recordPrefix(cpu, probeId, func, name);
  for (const v of values) out += formatTraceValue(v, opts);
  return out + recordEnd(quiet);
}
