// Switched aggregation buffers (src/device/linux/agg-switch.ts): which aggregations the device
// switches, the one merge of aggregation data (src/dif/aggdata.ts), and the store a switch fills
// and clear()/trunc() change -- over in-memory maps standing in for the kernel's.
import { beforeEach, describe, expect, test, vi } from 'vitest';
import * as D from '../../src/dif/constants.js';
import { addAggData, aggSquares, aggSum, aggSumBytes, aggWord } from '../../src/dif/aggdata.js';
import { compile } from '../../src/compiler/compile.js';
import { ProbeRegistry } from '../../src/providers/registry.js';
import { switchedAggregations } from '../../src/device/linux/layout.js';

/** The kernel's maps, by fd: entries by hex key; an outer map's value is the inner map's fd. */
const maps = new Map<number, Map<string, Buffer>>();
const mapOf = (fd: number) => maps.get(fd) ?? maps.set(fd, new Map()).get(fd)!;
vi.mock('../../src/device/native.js', () => ({
  native: {
    mapUpdate: (fd: number, key: Buffer, value: Buffer) => void mapOf(fd).set(key.toString('hex'), Buffer.from(value)),
    mapLookup: (fd: number, key: Buffer, value: Buffer) => {
      const v = mapOf(fd).get(key.toString('hex'));
      return v !== undefined && (v.copy(value), true);
    },
    mapLookupAndDelete: (fd: number, key: Buffer, value: Buffer) => {
      const m = mapOf(fd), v = m.get(key.toString('hex'));
      return v !== undefined && (v.copy(value), m.delete(key.toString('hex')));
    },
    mapNextKey: (fd: number, key: Buffer | null, next: Buffer) => {
      const keys = [...mapOf(fd).keys()];
      const at = key === null ? 0 : keys.indexOf(key.toString('hex')) + 1;
      if (at >= keys.length) return false;
      Buffer.from(keys[at], 'hex').copy(next);
      return true;
    },
  },
}));
const { SwitchedMaps } = await import('../../src/device/linux/agg-switch.js');

/** u64 words as a buffer. */
const words = (...ws: bigint[]) => {
  const b = Buffer.alloc(8 * ws.length);
  ws.forEach((w, i) => b.writeBigUInt64LE(BigInt.asUintN(64, w), 8 * i));
  return b;
};
const wordsOf = (b: Buffer) => Array.from({ length: b.length / 8 }, (_, i) => b.readBigInt64LE(8 * i));
const key = (n: number) => words(BigInt(n));

describe('aggregation data sums', () => {
  const sumOf = (action: number, ...data: Buffer[]) => {
    const sum = aggSum(data[0].length);
    for (const d of data) addAggData(action, sum, d);
    return sum;
  };
  test('counts and buckets add, wrapping as u64 words; taking away undoes it', () => {
    const sum = sumOf(D.DTRACEAGG_QUANTIZE, words(5n, -1n), words(3n, 1n));
    expect(wordsOf(aggSumBytes(D.DTRACEAGG_QUANTIZE, sum))).toEqual([8n, 0n]);
    expect([aggWord(sum, 0), aggWord(sum, 1)]).toEqual([8n, 0n]);
    addAggData(D.DTRACEAGG_QUANTIZE, sum, words(3n, 1n), -1);
    expect(wordsOf(aggSumBytes(D.DTRACEAGG_QUANTIZE, sum))).toEqual([5n, -1n]);
  });

  test('min and max keep the value seen, and ignore a CPU that saw none', () => {
    const none = words(0n, 0n);
    expect(sumOf(D.DTRACEAGG_MIN, none, words(7n, 1n), words(9n, 1n))).toEqual([7n, 1n]);
    expect(sumOf(D.DTRACEAGG_MAX, words(-5n, 1n), none, words(-9n, 1n))).toEqual([-5n, 1n]);
    expect(wordsOf(aggSumBytes(D.DTRACEAGG_MAX, sumOf(D.DTRACEAGG_MAX, words(-5n, 1n))))).toEqual([-5n, 1n]);
    expect(sumOf(D.DTRACEAGG_MAX, none, none)).toEqual([0n, 0n]);
    expect(() => addAggData(D.DTRACEAGG_MAX, [1n, 1n], words(1n, 1n), -1)).toThrow(RangeError);
  });

  test('stddev: the sum of squares carries and borrows across its two words', () => {
    const sum = sumOf(D.DTRACEAGG_STDDEV, words(1n, 2n, -1n, 0n), words(1n, 1n, 1n, 0n)); // squares 2^64 - 1, then 1
    expect(aggSquares(sum)).toBe(1n << 64n);
    expect(wordsOf(aggSumBytes(D.DTRACEAGG_STDDEV, sum))).toEqual([2n, 3n, 0n, 1n]);
    addAggData(D.DTRACEAGG_STDDEV, sum, words(1n, 1n, 1n, 0n), -1);
    expect(wordsOf(aggSumBytes(D.DTRACEAGG_STDDEV, sum))).toEqual([1n, 2n, -1n, 0n]);
  });
});

describe('which aggregations are switched', () => {
  const program = (text: string) =>
    compile([{ kind: 'n', text, name: text }], { registry: new ProbeRegistry(), options: new Map(), macroArgs: [], zdefs: true }).program;
  test('those clear() and trunc() name, not trunc()\'s operand', () => {
    // @b's id is 2, trunc()'s operand too: only @a and @c are switched.
    const p = program('BEGIN { @a[1] = count(); @b = sum(1); @c = max(1); trunc(@a, 2); clear(@c); printa(@b); }');
    const ids = p.ecbs.flatMap((e) => e.actions.filter((a) => D.isAggregatingAction(a.kind)).map((a) => [a.aggName, Number(a.uarg)] as const));
    const id = (name: string) => ids.find(([n]) => n === name)![1];
    expect(id('b')).toBe(2);
    expect([...switchedAggregations(p, [])].sort()).toEqual([id('a'), id('c')].sort());
  });
  test('none in a program without clear() or trunc()', () => {
    expect(switchedAggregations(program('BEGIN { @a[1] = count(); printa(@a); }'), []).size).toBe(0);
  });
});

describe('a switched aggregation', () => {
  const OUTER = 100, A = 101, B = 102, NCPU = 2;
  beforeEach(() => maps.clear());
  const inSlot = () => mapOf(OUTER).get('00000000')!.readUInt32LE(0);
  /** A probe on `cpu` adds n to key k's count in the map in the slot now. */
  const count = (k: number, cpu: number, n: bigint) => {
    const m = mapOf(inSlot()), id = key(k).toString('hex');
    const v = m.get(id) ?? Buffer.alloc(8 * NCPU);
    v.writeBigUInt64LE(v.readBigUInt64LE(8 * cpu) + n, 8 * cpu);
    m.set(id, v);
  };
  const counts = (sw: InstanceType<typeof SwitchedMaps>) =>
    Object.fromEntries(sw.entries().map((e) => [Number(e.key.readBigUInt64LE(0)), e.value.readBigUInt64LE(0)]));
  const make = () => {
    mapOf(OUTER).set('00000000', Buffer.from([A, 0, 0, 0]));
    return new SwitchedMaps(OUTER, [A, B], { keyed: true, keySize: 8, valueSize: 8, action: D.DTRACEAGG_COUNT, ncpu: NCPU, perCpu: true });
  };

  test('a switch moves the map in the slot into the store, CPUs merged, and empties it', () => {
    const sw = make();
    count(1, 0, 3n), count(1, 1, 4n), count(2, 1, 1n);
    sw.switch();
    expect(inSlot()).toBe(B);
    expect(mapOf(A).size).toBe(0);
    expect(counts(sw)).toEqual({ 1: 7n, 2: 1n });
    count(1, 0, 1n);
    sw.switch();
    expect(inSlot()).toBe(A);
    expect(counts(sw)).toEqual({ 1: 8n, 2: 1n });
  });

  test('trunc() removes the entries read; what came after stays, read at the next switch', () => {
    const sw = make();
    count(1, 0, 5n), count(2, 0, 2n);
    sw.switch();
    const read = sw.entries();
    count(1, 1, 6n); // after the read, before trunc()
    for (const e of read) sw.remove(e.key, [e.value]);
    expect(counts(sw)).toEqual({});
    sw.switch();
    expect(counts(sw)).toEqual({ 1: 6n });
  });

  test('clear() zeroes what was read and keeps the key', () => {
    const sw = make();
    count(1, 0, 5n);
    sw.switch();
    const [read] = sw.entries();
    sw.clear(read.key, [read.value]);
    expect(counts(sw)).toEqual({ 1: 0n });
  });

  test('a read older than the store (a fleet agent switched since) takes away only itself', () => {
    const sw = make();
    count(1, 0, 5n);
    sw.switch();
    const [read] = sw.entries();
    count(1, 1, 2n);
    sw.switch(); // the store now holds 7
    sw.remove(read.key, [read.value]);
    expect(counts(sw)).toEqual({ 1: 2n });
  });

  test('a keyless one keeps its element, read zero after trunc()', () => {
    mapOf(OUTER).set('00000000', Buffer.from([A, 0, 0, 0]));
    const sw = new SwitchedMaps(OUTER, [A, B], { keyed: false, keySize: 4, valueSize: 16, action: D.DTRACEAGG_MAX, ncpu: 1, perCpu: true }, 1);
    const zero = Buffer.alloc(4);
    mapOf(A).set('00000000', words(9n, 1n));
    mapOf(B).set('00000000', words(0n, 0n));
    sw.switch();
    expect(wordsOf(sw.value(zero))).toEqual([9n, 1n]);
    expect(wordsOf(mapOf(A).get('00000000')!)).toEqual([0n, 0n]);
    sw.remove(zero, [words(9n, 1n)]);
    expect(wordsOf(sw.value(zero))).toEqual([0n, 0n]);
  });
});
