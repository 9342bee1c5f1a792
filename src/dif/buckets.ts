// Aggregation bucket math, as DTrace's kernel lays the buckets out: the device sizes and fills
// quantize(), lquantize() and llquantize() values by it, the consumer labels their rows by it.

import type { LlquantizeArg, LquantizeArg } from './constants.js';

export type LquantizeParams = LquantizeArg;
export type LlquantizeParams = LlquantizeArg;

/** DTrace's quantize() has 127 power-of-two buckets (DTRACE_QUANTIZE_NBUCKETS): -2^62..-1, 0, 1..2^62;
 * bucket 63 (DTRACE_QUANTIZE_ZEROBUCKET) holds zero. */
export const QUANTIZE_NBUCKETS = 63 * 2 + 1;
export const QUANTIZE_ZEROBUCKET = 63;

/** The value a quantize bucket is labelled with: its lower bound (DTRACE_QUANTIZE_BUCKETVAL). */
export function quantizeBucketValue(bucket: number): bigint {
  if (bucket < QUANTIZE_ZEROBUCKET) return -(1n << BigInt(QUANTIZE_ZEROBUCKET - 1 - bucket));
  if (bucket === QUANTIZE_ZEROBUCKET) return 0n;
  return 1n << BigInt(bucket - QUANTIZE_ZEROBUCKET - 1);
}

/** The quantize bucket a value falls in (as the kernel chooses it). */
export function quantizeBucket(value: bigint): number {
  if (value < 0n) {
    for (let i = 0; i < QUANTIZE_ZEROBUCKET; i++) if (value <= quantizeBucketValue(i)) return i;
    return QUANTIZE_ZEROBUCKET - 1;
  }
  for (let i = QUANTIZE_ZEROBUCKET + 1; i < QUANTIZE_NBUCKETS; i++) if (value < quantizeBucketValue(i)) return i - 1;
  return QUANTIZE_NBUCKETS - 1;
}

/** The lquantize bucket a value falls in: 0 below base, levels + 1 at or above the top. */
export function lquantizeBucket(p: LquantizeParams, value: bigint): number {
  const base = BigInt(p.base);
  if (value < base) return 0;
  const level = (value - base) / BigInt(p.step);
  if (level < BigInt(p.levels)) return Number(level) + 1;
  return p.levels + 1;
}

/**
 * The lower bound of every llquantize bucket after the underflow bucket, in
 * order; the last one is the overflow bucket's bound (factor^(high+1)).
 */
export function llquantizeBounds(p: LlquantizeParams): bigint[] {
  const factor = BigInt(p.factor);
  const nsteps = BigInt(p.nsteps);
  let value = 1n;
  let order = 0;
  for (; order < p.low; order++) value *= factor;
  let next = value * factor;
  let step = next > nsteps ? next / nsteps : 1n;
  const bounds: bigint[] = [];
  while (order <= p.high) {
    bounds.push(value);
    // The next multiple of the step: with fewer steps than the factor (10 and 5: 1, 2, 4, 6, 8,
    // 10, 20, 40, ...) the magnitude's first bucket starts below the step.
    value = (value / step + 1n) * step;
    if (value < next) continue;
    value = next;
    next = value * factor;
    step = next > nsteps ? next / nsteps : 1n;
    order++;
  }
  bounds.push(value);
  return bounds;
}

/**
 * llquantize() buckets as DTrace for Linux lays them out, symmetric about zero: the negative
 * overflow (<= -top), the negative steps from the largest magnitude down, the bucket of values
 * whose magnitude is below factor^low (llquantizeZeroBucket), the positive steps, the positive
 * overflow (>= top).
 */
export function llquantizeBucketCount(p: LlquantizeParams): number {
  return 2 * llquantizeBounds(p).length + 1;
}

/** Index of the bucket of values whose magnitude is below factor^low. */
export function llquantizeZeroBucket(p: LlquantizeParams): number {
  return llquantizeBounds(p).length;
}

/** The llquantize bucket a value falls in. */
export function llquantizeBucket(p: LlquantizeParams, value: bigint): number {
  const bounds = llquantizeBounds(p);
  const mag = value < 0n ? -value : value;
  let k = 0;
  while (k < bounds.length && bounds[k] <= mag) k++;
  return value < 0n ? bounds.length - k : bounds.length + k;
}

/**
 * The magnitude a bucket stands for: bucket zero +/- k is bounds[k - 1] (k = 1..n; the overflow
 * at k = n is the top), 0 for the zero bucket.
 */
export function llquantizeBucketValue(p: LlquantizeParams, bucket: number): bigint {
  const bounds = llquantizeBounds(p);
  const k = bucket - bounds.length;
  if (k === 0) return 0n;
  return k > 0 ? bounds[k - 1] : -bounds[-k - 1];
}
