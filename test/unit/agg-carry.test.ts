// The offsets that make clear() and trunc() exact (src/device/linux/agg-carry.ts): what the
// consumer read is taken away, what probes add afterwards stays, in wrapping per-CPU words.
import { describe, expect, test } from 'vitest';
import * as D from '../../src/dif/constants.js';
import { AggOffsets, HIDDEN_IDLE_MS, offsettable } from '../../src/device/linux/agg-carry.js';

/** A per-CPU value of u64 words: words[cpu][i]. */
function value(words: bigint[][]): Buffer {
  const b = Buffer.alloc(words.length * words[0].length * 8);
  words.flat().forEach((w, i) => b.writeBigUInt64LE(BigInt.asUintN(64, w), i * 8));
  return b;
}
function words(b: Buffer, ncpu: number): bigint[][] {
  const per = b.length / 8 / ncpu;
  return Array.from({ length: ncpu }, (_, c) => Array.from({ length: per }, (_, i) => b.readBigUInt64LE((c * per + i) * 8)));
}
const KEY = Buffer.from([1, 2, 3, 4]);

describe('aggregation offsets', () => {
  test('clear() takes away what was read; increments made after the read survive', () => {
    const o = new AggOffsets(2);
    o.clear(7, KEY, value([[10n], [5n]]), D.DTRACEAGG_COUNT);
    const later = value([[13n], [5n]]); // CPU 0 counted 3 more after the read
    o.apply(7, KEY, later, D.DTRACEAGG_COUNT);
    expect(words(later, 2)).toEqual([[3n], [0n]]);
    // A second clear takes away the second read: the offset accumulates.
    o.clear(7, KEY, value([[3n], [0n]]), D.DTRACEAGG_COUNT);
    const again = value([[14n], [5n]]);
    o.apply(7, KEY, again, D.DTRACEAGG_COUNT);
    expect(words(again, 2)).toEqual([[1n], [0n]]);
  });

  test('stddev: the sum of squares is one 128-bit word whose borrow crosses the halves', () => {
    const o = new AggOffsets(1);
    // count, total, sum of squares low, high: read 2^64 (low 0, high 1).
    o.clear(3, KEY, value([[2n, 4n, 0n, 1n]]), D.DTRACEAGG_STDDEV);
    const later = value([[3n, 5n, 1n, 1n]]); // one more value of 1: squares 2^64 + 1
    o.apply(3, KEY, later, D.DTRACEAGG_STDDEV);
    expect(words(later, 1)).toEqual([[1n, 1n, 1n, 0n]]);
  });

  test('trunc(): a hidden entry shows again when it changes, and is deleted only when idle', () => {
    const o = new AggOffsets(1);
    o.hide(9, KEY, value([[4n]]), D.DTRACEAGG_COUNT, 1000);
    const same = value([[4n]]);
    o.apply(9, KEY, same, D.DTRACEAGG_COUNT);
    expect(o.visibility(9, KEY, same, 1000 + HIDDEN_IDLE_MS - 1)).toBe('hide');
    expect(o.visibility(9, KEY, same, 1000 + HIDDEN_IDLE_MS)).toBe('delete');
    // Deleted holding 4 raw (nothing raced): no carry remains.
    o.truncate(9, KEY, value([[0n]]), value([[4n]]), D.DTRACEAGG_COUNT);
    expect(o.carriedOnly(9, new Set(), D.DTRACEAGG_COUNT)).toEqual([]);

    o.hide(9, KEY, value([[2n]]), D.DTRACEAGG_COUNT, 0);
    const grown = value([[5n]]);
    o.apply(9, KEY, grown, D.DTRACEAGG_COUNT);
    expect(o.visibility(9, KEY, grown, 0)).toBe('show');
    expect(words(grown, 1)).toEqual([[3n]]);
  });

  test('a probe that raced the delete is carried over and shown', () => {
    const o = new AggOffsets(1);
    o.hide(9, KEY, value([[4n]]), D.DTRACEAGG_COUNT, 0);
    o.truncate(9, KEY, value([[0n]]), value([[6n]]), D.DTRACEAGG_COUNT); // 2 came in before the delete
    const [c] = o.carriedOnly(9, new Set(), D.DTRACEAGG_COUNT);
    expect(c.key).toEqual(KEY);
    expect(words(c.value, 1)).toEqual([[2n]]);
  });

  test('min() and max() are reset, not offset', () => {
    expect(offsettable(D.DTRACEAGG_MIN)).toBe(false);
    expect(offsettable(D.DTRACEAGG_MAX)).toBe(false);
    expect(offsettable(D.DTRACEAGG_QUANTIZE)).toBe(true);
  });
});
