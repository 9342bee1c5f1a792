// An aggregation's data as u64 words, and how two of them add up: the consumer adds CPUs
// together this way, and the device adds a switched-out aggregation buffer into what it keeps
// (device/linux/agg-switch.ts). The words, per kind (device/linux/aggregate.ts fills them):
//   count, sum             one word
//   min, max               the value, then a word that is 1 once a value was seen
//   avg                    count, total
//   stddev                 count, total, sum of squares (128 bits: low word, high word)
//   the quantizes          one word per bucket

import * as D from './constants.js';

/**
 * into += from, word by word: counts, totals and buckets add (wrapping as u64), stddev's sum of
 * squares as one 128-bit word, min and max keep the lesser or greater of the values seen. With
 * sign -1 (not for min or max), from is taken away instead.
 */
export function mergeAggData(action: number, into: Buffer, from: Buffer, sign: 1 | -1 = 1): void {
  if (action === D.DTRACEAGG_MIN || action === D.DTRACEAGG_MAX) {
    if (sign < 0) throw new RangeError('min() and max() data cannot be taken away');
    if (from.readBigInt64LE(8) === 0n) return;
    const v = from.readBigInt64LE(0);
    if (into.readBigInt64LE(8) !== 0n) {
      const have = into.readBigInt64LE(0);
      if (action === D.DTRACEAGG_MIN ? v >= have : v <= have) return;
    }
    into.writeBigInt64LE(v, 0);
    into.writeBigInt64LE(1n, 8);
    return;
  }
  const add = (x: bigint, y: bigint, bits: number) => BigInt.asUintN(bits, sign > 0 ? x + y : x - y);
  for (let w = 0; w + 8 <= into.length; w += 8) {
    if (action === D.DTRACEAGG_STDDEV && w === 16) {
      const wide = (b: Buffer) => (b.readBigUInt64LE(24) << 64n) | b.readBigUInt64LE(16);
      const r = add(wide(into), wide(from), 128);
      into.writeBigUInt64LE(BigInt.asUintN(64, r), 16);
      into.writeBigUInt64LE(r >> 64n, 24);
      w += 8;
      continue;
    }
    into.writeBigUInt64LE(add(into.readBigUInt64LE(w), from.readBigUInt64LE(w), 64), w);
  }
}

/** Several values (each CPU's) added into one new buffer of their size. */
export function mergedAggData(action: number, values: Buffer[], size = values[0]?.length ?? 0): Buffer {
  const out = Buffer.alloc(size);
  for (const v of values) mergeAggData(action, out, v);
  return out;
}
