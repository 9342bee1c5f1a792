// How an aggregation's data add up, in the u64 words device/linux/aggregate.ts lays out and
// fills: the consumer adds CPUs together this way, and the device adds a switched-out
// aggregation buffer into what it keeps (device/linux/agg-switch.ts).
//
// The sum is kept as unbounded words (AggSum) and wrapped when read: a u64 word modulo 2^64,
// stddev's sum of squares (words 2 and 3, low and high) as one 128-bit word.

import * as D from './constants.js';

/** Data being added up: one unbounded integer per u64 word (min and max: the value, seen). */
export type AggSum = bigint[];

const isMinMax = (action: number) => action === D.DTRACEAGG_MIN || action === D.DTRACEAGG_MAX;

/** Nothing added yet, for data of `size` bytes. */
export function aggSum(size: number): AggSum {
  return new Array<bigint>(size >> 3).fill(0n);
}

/**
 * Add one CPU's (or one buffer's) data into a sum: counts, totals and buckets add, min and max
 * keep the lesser or greater of the values seen (a second word that is 1 once one was). With
 * sign -1 (not for min or max) the data is taken away instead.
 */
export function addAggData(action: number, sum: AggSum, data: Buffer, sign: 1 | -1 = 1): void {
  if (isMinMax(action)) {
    if (sign < 0) throw new RangeError('min() and max() data cannot be taken away');
    if (data.length < 16 || data.readBigInt64LE(8) === 0n) return;
    const v = data.readBigInt64LE(0);
    if (sum[1] !== 0n && (action === D.DTRACEAGG_MIN ? v >= sum[0] : v <= sum[0])) return;
    sum[0] = v;
    sum[1] = 1n;
    return;
  }
  for (let i = 0; i < sum.length; i++) {
    const w = data.readBigUInt64LE(8 * i);
    sum[i] = sign > 0 ? sum[i] + w : sum[i] - w;
  }
}

/** Word i of a sum as the kernel's u64 word holds it (signed). */
export function aggWord(sum: AggSum, i: number): bigint {
  return BigInt.asIntN(64, sum[i]);
}

/** stddev's sum of squares, 128 bits from words 2 (low) and 3 (high). */
export function aggSquares(sum: AggSum): bigint {
  return BigInt.asUintN(128, (sum[3] << 64n) + sum[2]);
}

/** A sum in the kernel's layout again. */
export function aggSumBytes(action: number, sum: AggSum): Buffer {
  const b = Buffer.alloc(8 * sum.length);
  sum.forEach((w, i) => b.writeBigUInt64LE(BigInt.asUintN(64, w), 8 * i));
  if (action === D.DTRACEAGG_STDDEV && sum.length >= 4) {
    const sq = aggSquares(sum);
    b.writeBigUInt64LE(BigInt.asUintN(64, sq), 16);
    b.writeBigUInt64LE(sq >> 64n, 24);
  }
  return b;
}
