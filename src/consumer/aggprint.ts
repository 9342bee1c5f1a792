// Printing aggregations as dtrace(1) does at exit and for printa():
// the default layout of keys and values, the quantize/lquantize/llquantize
// distribution tables, avg/stddev arithmetic, and DTrace's sort order.
//
// Facts followed: libdtrace dt_consume.c (dt_print_aggs, dt_print_datum,
// dt_print_quantize, dt_print_lquantize, dt_print_llquantize,
// dt_print_quantline, dt_stddev) and dt_aggregate.c (the keycmp/valcmp
// family and the aggsortkey/aggsortrev/aggsortkeypos options).

import { asSigned, asUnsigned, DEFAULT_STRSIZE, formatBytes, pad, stringRecord, type Value } from './records.js';
import { formatPrintf, type AggFormatValue, type PrintfOptions, type SymbolLookup } from './printf.js';
import { parseFormat, type FormatPiece } from '../abi/printf-format.js';
import {
  type LlquantizeParams, type LquantizeParams, QUANTIZE_NBUCKETS, QUANTIZE_ZEROBUCKET, llquantizeBounds, llquantizeBucket, llquantizeBucketCount, llquantizeZeroBucket,
  lquantizeBucket, quantizeBucket, quantizeBucketValue,
} from '../dif/buckets.js';

export type AggAction =
  | 'count'
  | 'sum'
  | 'avg'
  | 'min'
  | 'max'
  | 'stddev'
  | 'quantize'
  | 'lquantize'
  | 'llquantize';

export interface AggDesc {
  action: AggAction;
  lquantize?: LquantizeParams;
  llquantize?: LlquantizeParams;
  /** normalize(): printed values are divided by this (1 when absent). */
  normal?: bigint;
  /** -x aggzoom: distribution bars scaled so that the largest is 95% of the width. */
  zoom?: boolean;
}

export interface AvgData {
  count: bigint;
  total: bigint;
}

export interface StddevData {
  count: bigint;
  total: bigint;
  /** Sum of squares, 128-bit unsigned as the kernel keeps it. */
  totalSquares: bigint;
}

/**
 * Merged data of one entry: a bigint for count/sum/min/max, AvgData,
 * StddevData, or the bucket counts for the quantize family (quantize: 127
 * buckets indexed as DTrace's; lquantize: levels + 2 with underflow first and
 * overflow last; llquantize: llquantizeBucketCount(params) buckets).
 */
export type AggData = bigint | AvgData | StddevData | bigint[];

export interface AggEntry {
  keys: Value[];
  data: AggData;
}

export interface AggSortOptions {
  /** Sort by key rather than by value. */
  aggsortkey?: boolean;
  /** Reverse the order. */
  aggsortrev?: boolean;
  /** Which key to compare first (0-based). */
  aggsortkeypos?: number;
  /** For printa() of several aggregations: which one's value sorts (not used here). */
  aggsortpos?: number;
}

export interface AggPrintOptions extends AggSortOptions {
  /** Record size of string keys (the strsize option), for sorting. */
  strsize?: number;
  /** Symbol lookups for printa's %a, %A and %k (consumer/stacks.ts). */
  kernelSymbols?: SymbolLookup;
  userSymbols?: SymbolLookup;
  stackIndent?: number;
  /** -x aggzoom (see AggDesc.zoom). */
  aggzoom?: boolean;
}

// ---------------------------------------------------------------------------
// Reductions

/** avg() as printed by default: signed total / count, 0 when empty. */
export function avgValue(d: AvgData): bigint {
  return d.count === 0n ? 0n : BigInt.asIntN(64, d.total) / BigInt.asIntN(64, d.count);
}

// Integer square root (floor).
function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = BigInt(Math.floor(Math.sqrt(Number(n))));
  while (x * x > n) x--;
  while ((x + 1n) * (x + 1n) <= n) x++;
  return x;
}

/**
 * dt_stddev: sqrt(avg(x^2) - avg(x)^2) in 128-bit unsigned arithmetic, with
 * the average of x taken as a truncated signed 64-bit division.
 */
export function stddevValue(d: StddevData): bigint {
  if (d.count === 0n) return 0n;
  const count = BigInt.asUintN(64, d.count);
  const avgOfSquares = BigInt.asUintN(128, d.totalSquares) / count;
  let normAvg = BigInt.asIntN(64, d.total) / BigInt.asIntN(64, d.count);
  if (normAvg < 0n) normAvg = -normAvg;
  const diff = BigInt.asUintN(128, avgOfSquares - normAvg * normAvg);
  return BigInt.asUintN(64, isqrt(diff));
}

// ---------------------------------------------------------------------------
// Distribution tables

const ATS = '@'.repeat(40);
const SPACES = ' '.repeat(40);

function absBig(n: bigint): bigint {
  return n < 0n ? -n : n;
}

/** What a distribution's bars are scaled by: the sum of its counts, or under aggzoom the largest. */
type BarTotal = bigint | { zoomed: number };

/** DTRACE_AGGZOOM_MAX: under aggzoom the largest bar is this fraction of the width. */
const AGGZOOM_MAX = 0.95;

// (uint)(|val| * len / total + 0.5): exact for a sum of counts; in floating point under aggzoom,
// whose total is max * (1 / 0.95) as dt_quantize_total computes it.
function barDepth(val: bigint, len: number, total: BarTotal): number {
  if (typeof total !== 'bigint') {
    if (total.zoomed === 0) return 0;
    return Math.floor((Math.abs(Number(val)) * len) / total.zoomed + 0.5);
  }
  if (total === 0n) return 0;
  const L = BigInt(len);
  return Number((2n * absBig(val) * L + total) / (2n * total));
}

/** One bar and count of a distribution (dt_print_quantline). */
function quantLine(val: bigint, total: BarTotal, positives: boolean, negatives: boolean, normal = 1n): string {
  const count = pad(normalized(val, normal).toString(), -9);
  if (!negatives) {
    const depth = positives ? barDepth(val, 40, total) : 0;
    return `|${ATS.slice(0, depth)}${SPACES.slice(depth)} ${count}\n`;
  }
  if (!positives) {
    const depth = barDepth(val, 40, total);
    return `${SPACES.slice(depth)}${ATS.slice(0, depth)}| ${count}\n`;
  }
  // Both signs: half-length bars either side of a centre line.
  const depth = barDepth(val, 20, total);
  if (val <= 0n) return `${SPACES.slice(0, 20 - depth)}${ATS.slice(0, depth)}|${SPACES.slice(0, 20)} ${count}\n`;
  return `${SPACES.slice(0, 20)}|${ATS.slice(0, depth)}${SPACES.slice(0, 20 - depth)} ${count}\n`;
}

const DIST_HEADER = `\n${pad('value', 16)} ${pad('------------- Distribution -------------', 41)} ${pad('count', -9)}\n`;

/** Trim zero rows as DTrace does: keep one zero row either side of the data. */
function trimRange(data: bigint[], emptyFirst: number, emptyLast: number): [number, number] {
  const n = data.length;
  let first = 0;
  while (first < n && data[first] === 0n) first++;
  if (first === n) return [emptyFirst, emptyLast];
  if (first > 0) first--;
  let last = n - 1;
  while (last > 0 && data[last] === 0n) last--;
  if (last < n - 1) last++;
  return [first, last];
}

function totals(data: bigint[], first: number, last: number, zoom = false): { total: BarTotal; positives: boolean; negatives: boolean } {
  let total = 0n;
  let largest = 0;
  let positives = false;
  let negatives = false;
  for (let i = first; i <= last; i++) {
    if (data[i] > 0n) positives = true;
    if (data[i] < 0n) negatives = true;
    total += absBig(data[i]);
    largest = Math.max(largest, Math.abs(Number(data[i])) * (1 / AGGZOOM_MAX));
  }
  return { total: zoom ? { zoomed: largest } : total, positives, negatives };
}

/** The rows a quantize() table shows. */
function quantizeRange(buckets: bigint[]): [number, number] {
  // DTrace for Linux scans every bucket, the last (2^62 and up) too; nothing at all shows the
  // three rows about zero.
  let first = 0;
  while (first < QUANTIZE_NBUCKETS && buckets[first] === 0n) first++;
  let last = QUANTIZE_NBUCKETS - 1;
  if (first === QUANTIZE_NBUCKETS) return [QUANTIZE_ZEROBUCKET - 1, QUANTIZE_ZEROBUCKET + 1];
  if (first > 0) first--;
  while (last > 0 && buckets[last] === 0n) last--;
  if (last < QUANTIZE_NBUCKETS - 1) last++;
  return [first, last];
}

/** A quantize() table (dt_print_quantize), starting with its blank line and header. */
export function formatQuantize(buckets: bigint[], normal = 1n, zoom = false): string {
  if (buckets.length !== QUANTIZE_NBUCKETS) throw new Error(`quantize data has ${buckets.length} buckets, not 127`);
  const [first, last] = quantizeRange(buckets);
  const t = totals(buckets, first, last, zoom);
  let out = DIST_HEADER;
  for (let i = first; i <= last; i++) {
    out += pad(quantizeBucketValue(i).toString(), 16) + ' ' + quantLine(buckets[i], t.total, t.positives, t.negatives, normal);
  }
  return out;
}

/** An lquantize() table (dt_print_lquantize). */
export function formatLquantize(p: LquantizeParams, buckets: bigint[], normal = 1n, zoom = false): string {
  if (buckets.length !== p.levels + 2) throw new Error(`lquantize data has ${buckets.length} buckets, not ${p.levels + 2}`);
  const [first, last] = trimRange(buckets, 0, 2);
  const t = totals(buckets, first, last, zoom);
  let out = DIST_HEADER;
  for (let i = first; i <= last; i++) {
    let label: string;
    if (i === 0) label = `< ${p.base}`;
    else if (i === p.levels + 1) label = `>= ${int32(p.base + p.levels * p.step)}`;
    else label = String(int32(p.base + (i - 1) * p.step));
    out += pad(label, 16) + ' ' + quantLine(buckets[i], t.total, t.positives, t.negatives, normal);
  }
  return out;
}

function int32(n: number): number {
  return n | 0;
}

/**
 * The rows an llquantize() table shows (DTrace for Linux's dt_print_llquantize): from one bucket
 * before the first with data to one after the last (bucket zero + 1 alone when all are empty),
 * each with its label: the zero bucket is "0" when factor^low is 1, else "< N", or "abs() < N"
 * once a negative row shows; the outer ones "<= -top" and ">= top".
 */
function llquantizeRange(p: LlquantizeParams, buckets: bigint[]): { first: number; last: number; label: (i: number) => string } {
  const bounds = llquantizeBounds(p);
  const n = bounds.length, zero = n, nb = 2 * n + 1;
  if (buckets.length !== nb) throw new Error(`llquantize data has ${buckets.length} buckets, not ${nb}`);
  let first = 0;
  while (first < nb && buckets[first] === 0n) first++;
  let last: number;
  if (first === nb) first = last = zero + 1;
  else for (last = nb - 1; buckets[last] === 0n; last--);
  if (first > 0) first--;
  if (last < nb - 1) last++;
  const scale = bounds[0], top = bounds[n - 1];
  const label = (i: number): string => {
    const k = i - zero;
    if (k === 0) return scale === 1n ? '0' : first >= zero ? `< ${scale}` : `abs() < ${scale}`;
    if (k === n) return `>= ${top}`;
    if (k === -n) return `<= -${top}`;
    return k > 0 ? bounds[k - 1].toString() : `-${bounds[-k - 1]}`;
  };
  return { first, last, label };
}

/** An llquantize() table (dt_print_llquantize). */
export function formatLlquantize(p: LlquantizeParams, buckets: bigint[], normal = 1n, zoom = false): string {
  const { first, last, label } = llquantizeRange(p, buckets);
  const t = totals(buckets, first, last, zoom);
  let out = DIST_HEADER;
  for (let i = first; i <= last; i++)
    out += pad(label(i), 16) + ' ' + quantLine(buckets[i], t.total, t.positives, t.negatives, normal);
  return out;
}

// ---------------------------------------------------------------------------
// Default layout

/** Widths of integer keys and values by size (dt_print_datum). */
const INT_WIDTH: Record<number, number> = { 1: 3, 2: 5, 4: 8, 8: 16 };

/**
 * One aggregation key as printed by default: integers " %*d" by size (1- and
 * 2-byte keys read unsigned), strings "  %-50s", other bytes as a dump.
 */
export function formatAggKey(k: Value, strsize = DEFAULT_STRSIZE): string {
  switch (k.kind) {
    case 'int': {
      if (k.shown !== undefined) return k.shown;
      const n = k.size <= 2 ? asUnsigned(k) : asSigned(k);
      return ' ' + pad(n.toString(), INT_WIDTH[k.size]);
    }
    case 'string':
      return formatBytes(stringRecord(k.value, strsize), -50, false, false);
    case 'bytes':
      return k.shown ?? formatBytes(k.value, -50, false, false);
  }
}

function asBuckets(data: AggData, action: AggAction): bigint[] {
  if (!Array.isArray(data)) throw new Error(`${action}() data must be a bucket array`);
  return data;
}

function asPair(data: AggData, action: AggAction): AvgData {
  if (typeof data !== 'object' || Array.isArray(data)) throw new Error(`${action}() data must be {count,total}`);
  return data;
}

function asScalar(data: AggData, action: AggAction): bigint {
  if (typeof data !== 'bigint') throw new Error(`${action}() data must be a bigint`);
  return data;
}

/**
 * A value divided by normalize()'s factor as libdtrace prints it: `(long long)v / normal` with an
 * unsigned 64-bit normal, so the division is unsigned.
 */
function normalized(v: bigint, normal: bigint): bigint {
  if (normal === 1n || normal === 0n) return BigInt.asIntN(64, v);
  return BigInt.asIntN(64, BigInt.asUintN(64, v) / normal);
}

/** avg/stddev data as normalize() presents them: sums divided by normal (squares by normal^2). */
function normalizedPair(d: AvgData | StddevData, normal: bigint): StddevData {
  const sq = 'totalSquares' in d ? d.totalSquares : 0n;
  if (normal === 1n || normal === 0n) return { count: d.count, total: d.total, totalSquares: sq };
  return { count: d.count, total: BigInt.asIntN(64, d.total) / normal, totalSquares: BigInt.asUintN(128, sq) / normal / normal };
}

/** The aggregation value as printed by default, after the keys. */
export function formatAggValue(desc: AggDesc, data: AggData): string {
  const normal = desc.normal ?? 1n;
  switch (desc.action) {
    case 'count':
    case 'sum':
    case 'min':
    case 'max':
    case 'avg':
    case 'stddev':
      return ' ' + pad(aggScalarValue(desc, data).toString(), 16);
    case 'quantize':
      return formatQuantize(asBuckets(data, 'quantize'), normal, desc.zoom);
    case 'lquantize':
      if (!desc.lquantize) throw new Error('lquantize() without parameters');
      return formatLquantize(desc.lquantize, asBuckets(data, 'lquantize'), normal, desc.zoom);
    case 'llquantize':
      if (!desc.llquantize) throw new Error('llquantize() without parameters');
      return formatLlquantize(desc.llquantize, asBuckets(data, 'llquantize'), normal, desc.zoom);
  }
}

/** The value of a count/sum/min/max/avg/stddev entry as the default layout prints it. */
export function aggScalarValue(desc: AggDesc, data: AggData): bigint {
  const normal = desc.normal ?? 1n;
  switch (desc.action) {
    case 'avg':
      return avgValue(normalizedPair(asPair(data, 'avg'), normal));
    case 'stddev':
      return stddevValue(normalizedPair(asPair(data, 'stddev'), normal));
    default:
      return normalized(asScalar(data, desc.action), normal);
  }
}

/**
 * The rows of a quantize/lquantize/llquantize table (null for other aggregations): each bucket's
 * label -- its value, or "< n" / ">= n" for the underflow and overflow buckets -- and its count,
 * the rows the text table shows.
 */
export function distributionRows(desc: AggDesc, data: AggData): { value: bigint | string; count: bigint }[] | null {
  const normal = desc.normal ?? 1n;
  const row = (value: bigint | string, n: bigint) => ({ value, count: normalized(n, normal) });
  const rows: { value: bigint | string; count: bigint }[] = [];
  if (desc.action === 'quantize') {
    const b = asBuckets(data, 'quantize');
    const [first, last] = quantizeRange(b);
    for (let i = first; i <= last; i++) rows.push(row(quantizeBucketValue(i), b[i]));
    return rows;
  }
  if (desc.action === 'lquantize' && desc.lquantize) {
    const p = desc.lquantize;
    const b = asBuckets(data, 'lquantize');
    const [first, last] = trimRange(b, 0, 2);
    for (let i = first; i <= last; i++) {
      if (i === 0) rows.push(row(`< ${p.base}`, b[i]));
      else if (i === p.levels + 1) rows.push(row(`>= ${int32(p.base + p.levels * p.step)}`, b[i]));
      else rows.push(row(BigInt(int32(p.base + (i - 1) * p.step)), b[i]));
    }
    return rows;
  }
  if (desc.action === 'llquantize' && desc.llquantize) {
    const b = asBuckets(data, 'llquantize');
    const { first, last, label } = llquantizeRange(desc.llquantize, b);
    for (let i = first; i <= last; i++) {
      const l = label(i);
      rows.push(row(/^-?\d+$/.test(l) ? BigInt(l) : l, b[i]));
    }
    return rows;
  }
  return null;
}

/** One entry's line(s): keys, value, newline. */
export function formatAggEntry(desc: AggDesc, e: AggEntry, strsize?: number): string {
  let out = '';
  for (const k of e.keys) out += formatAggKey(k, strsize);
  return out + formatAggValue(desc, e.data) + '\n';
}

/**
 * All entries of one aggregation, sorted, in the default layout.  This is
 * what follows the blank line of printa(@a) or of the exit-time output;
 * consecutive aggregations are printed with no separator.
 */
export function formatAggregation(desc: AggDesc, entries: AggEntry[], opts: AggPrintOptions = {}): string {
  let out = '';
  for (const e of sortAggEntries(desc, entries, opts)) out += formatAggEntry(desc, e, opts.strsize);
  return out;
}

/** printa(@a) without a format: a newline, then the aggregation. */
export function formatPrintaDefault(desc: AggDesc, entries: AggEntry[], opts: AggPrintOptions = {}): string {
  return '\n' + formatAggregation(desc, entries, opts);
}

/** One aggregation variable for the exit-time output. */
export interface AggVariable {
  /** The aggregation variable id: the order they were introduced in the program. */
  varId: number;
  desc: AggDesc;
  entries: AggEntry[];
}

/**
 * Every aggregation as dtrace prints them at exit (dtrace_aggregate_print),
 * after its own blank line: by variable id (reversed too under aggsortrev),
 * each sorted.
 */
export function formatAllAggregations(vars: AggVariable[], opts: AggPrintOptions = {}): string {
  const rev = opts.aggsortrev ? -1 : 1;
  const ordered = [...vars].sort((a, b) => rev * (a.varId - b.varId));
  return ordered.map((v) => formatAggregation(v.desc, v.entries, opts)).join('');
}

/**
 * printa() with a format: for each entry, the format applied to the keys as
 * printf arguments; %@ conversions take the aggregation value (quantize
 * tables print whole, whatever the conversion).  No leading newline.
 */
export function formatPrinta(
  fmt: string | FormatPiece[],
  desc: AggDesc,
  entries: AggEntry[],
  opts: AggPrintOptions & PrintfOptions = {},
): string {
  const pieces = typeof fmt === 'string' ? parseFormat(fmt) : fmt;
  let out = '';
  for (const e of sortAggEntries(desc, entries, opts)) {
    out += formatPrintf(pieces, e.keys, { ...opts, aggValues: [aggFormatValue(desc, e.data)] });
  }
  return out;
}

/**
 * What a %@ conversion sees.  count() is unsigned, the rest signed; avg()
 * divides as unsigned 64-bit (pfprint_average), so a negative average prints
 * as DTrace prints it, not as the default layout does.
 */
export function aggFormatValue(desc: AggDesc, data: AggData): AggFormatValue {
  const normal = desc.normal ?? 1n;
  switch (desc.action) {
    case 'count':
      return { kind: 'int', value: BigInt.asUintN(64, asScalar(data, 'count')) / (normal || 1n), signed: false };
    case 'sum':
    case 'min':
    case 'max':
      return { kind: 'int', value: normalized(asScalar(data, desc.action), normal), signed: true };
    case 'avg': {
      const d = normalizedPair(asPair(data, 'avg'), normal);
      const q = d.count === 0n ? 0n : BigInt.asUintN(64, d.total) / BigInt.asUintN(64, d.count);
      return { kind: 'int', value: BigInt.asIntN(64, q), signed: true };
    }
    case 'stddev':
      return { kind: 'int', value: BigInt.asIntN(64, stddevValue(normalizedPair(asPair(data, 'stddev'), normal))), signed: true };
    default:
      return { kind: 'text', text: formatAggValue(desc, data) };
  }
}

// ---------------------------------------------------------------------------
// Sorting

function keyRecordSize(k: Value, strsize: number): number {
  if (k.kind === 'int') return k.size;
  if (k.kind === 'string') return Math.max(strsize, Buffer.byteLength(k.value)) + 1;
  return k.value.length;
}

function keyBytes(k: Value, strsize: number): Buffer {
  if (k.kind === 'string') return stringRecord(k.value, strsize);
  if (k.kind === 'bytes') return k.value;
  return Buffer.alloc(0);
}

function cmp(a: bigint | number, b: bigint | number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * dt_aggregate_keycmp: keys compared in order starting at aggsortkeypos,
 * each first by record size, then integers as unsigned numbers of their size
 * and everything else byte by byte.
 */
export function compareAggKeys(a: Value[], b: Value[], keypos = 0, strsize = DEFAULT_STRSIZE): number {
  const n = Math.min(a.length, b.length);
  if (a.length !== b.length) return cmp(a.length, b.length);
  const start = keypos + 1 >= n + 1 || keypos < 0 ? 0 : keypos;
  for (let i = 0; i < n; i++) {
    const ndx = (i + start) % n;
    const ka = a[ndx];
    const kb = b[ndx];
    const sa = keyRecordSize(ka, strsize);
    const sb = keyRecordSize(kb, strsize);
    if (sa !== sb) return cmp(sa, sb);
    if (ka.kind === 'int' && kb.kind === 'int') {
      const c = cmp(asUnsigned(ka), asUnsigned(kb));
      if (c !== 0) return c;
      continue;
    }
    const c = Buffer.compare(keyBytes(ka, strsize), keyBytes(kb, strsize));
    if (c !== 0) return c;
  }
  return 0;
}

function quantizeSum(b: bigint[]): bigint {
  let total = 0n;
  for (let i = 0; i < b.length; i++) total += quantizeBucketValue(i) * b[i];
  return total;
}

function lquantizeSum(p: LquantizeParams, b: bigint[]): bigint {
  let base = BigInt(p.base);
  let total = b[0] * (base - 1n);
  for (let i = 0; i < p.levels; i++, base += BigInt(p.step)) total += b[i + 1] * base;
  return total + b[p.levels + 1] * (base + 1n);
}

function lquantizeZero(p: LquantizeParams, b: bigint[]): bigint {
  let base = p.base;
  if (base - 1 === 0) return b[0];
  for (let i = 0; i < p.levels; i++, base += p.step) if (base === 0) return b[i + 1];
  if (base + 1 === 0) return b[p.levels + 1];
  return 0n;
}

/** dt_aggregate_llquantizedsum: each step bucket's magnitude times its count, negatives subtracted. */
function llquantizeSum(p: LlquantizeParams, b: bigint[]): bigint {
  const bounds = llquantizeBounds(p);
  const zero = bounds.length;
  let total = 0n;
  for (let k = 1; k < bounds.length; k++) total += bounds[k - 1] * (b[zero + k] - b[zero - k]);
  return total;
}

/** dt_aggregate_valcmp for two entries of the same aggregation. */
export function compareAggValues(desc: AggDesc, a: AggData, b: AggData): number {
  switch (desc.action) {
    case 'count':
    case 'sum':
    case 'min':
    case 'max':
      return cmp(BigInt.asIntN(64, asScalar(a, desc.action)), BigInt.asIntN(64, asScalar(b, desc.action)));
    case 'avg':
      return cmp(avgValue(asPair(a, 'avg')), avgValue(asPair(b, 'avg')));
    case 'stddev':
      return cmp(stddevValue(asPair(a, 'stddev') as StddevData), stddevValue(asPair(b, 'stddev') as StddevData));
    case 'quantize': {
      const la = asBuckets(a, 'quantize');
      const lb = asBuckets(b, 'quantize');
      return cmp(quantizeSum(la), quantizeSum(lb)) || cmp(la[QUANTIZE_ZEROBUCKET], lb[QUANTIZE_ZEROBUCKET]);
    }
    case 'lquantize': {
      const p = desc.lquantize!;
      const la = asBuckets(a, 'lquantize');
      const lb = asBuckets(b, 'lquantize');
      return cmp(lquantizeSum(p, la), lquantizeSum(p, lb)) || cmp(lquantizeZero(p, la), lquantizeZero(p, lb));
    }
    case 'llquantize': {
      const p = desc.llquantize!;
      const la = asBuckets(a, 'llquantize');
      const lb = asBuckets(b, 'llquantize');
      const zero = llquantizeZeroBucket(p);
      return cmp(llquantizeSum(p, la), llquantizeSum(p, lb)) || cmp(la[zero], lb[zero]);
    }
  }
}

/**
 * The comparator dtrace uses for entries of one aggregation: by value with
 * ties broken by key (default), or by key alone (aggsortkey); aggsortrev
 * reverses it.
 */
export function aggEntryComparator(desc: AggDesc, opts: AggPrintOptions = {}): (a: AggEntry, b: AggEntry) => number {
  const keypos = opts.aggsortkeypos ?? 0;
  const strsize = opts.strsize ?? DEFAULT_STRSIZE;
  const rev = opts.aggsortrev ? -1 : 1;
  return (a, b) => {
    let c: number;
    if (opts.aggsortkey) c = compareAggKeys(a.keys, b.keys, keypos, strsize);
    else c = compareAggValues(desc, a.data, b.data) || compareAggKeys(a.keys, b.keys, keypos, strsize);
    return rev * c;
  };
}

export function sortAggEntries(desc: AggDesc, entries: AggEntry[], opts: AggPrintOptions = {}): AggEntry[] {
  return [...entries].sort(aggEntryComparator(desc, opts));
}
