import { describe, expect, test } from 'vitest';
import { formatAggregation, formatAllAggregations, formatLlquantize, formatLquantize, formatPrinta, formatPrintaDefault, formatQuantize, sortAggEntries, stddevValue, type AggDesc, type AggEntry } from '../../src/consumer/aggprint.js';
import { llquantizeBucket, llquantizeBucketCount, lquantizeBucket, QUANTIZE_NBUCKETS, quantizeBucket, type LlquantizeParams, type LquantizeParams } from '../../src/dif/buckets.js';
import type { Value } from '../../src/consumer/records.js';

const i = (value: number | bigint, size: 1 | 2 | 4 | 8 = 8, signed = true): Value => ({
  kind: 'int',
  value: BigInt(value),
  size,
  signed,
});
const s = (value: string): Value => ({ kind: 'string', value });

// The distribution header and rows, written out from dt_consume.c's formats:
// "\n%16s %41s %-9s\n" and "%16lld |%s%s %-9lld\n" (40 columns of bar).
const HEADER = '\n           value  ------------- Distribution ------------- count    \n';
const row = (label: string, ats: number, count: number) =>
  label.padStart(16) + ' |' + '@'.repeat(ats).padEnd(40) + ' ' + String(count).padEnd(9) + '\n';

function quantizeOf(values: number[]): bigint[] {
  const b: bigint[] = new Array(QUANTIZE_NBUCKETS).fill(0n);
  for (const v of values) b[quantizeBucket(BigInt(v))]++;
  return b;
}

describe('bucket layouts', () => {
  test('quantize buckets are powers of two, zero alone', () => {
    expect(quantizeBucket(0n)).toBe(63);
    expect(quantizeBucket(1n)).toBe(64);
    expect(quantizeBucket(2n)).toBe(65);
    expect(quantizeBucket(3n)).toBe(65);
    expect(quantizeBucket(4n)).toBe(66);
    expect(quantizeBucket(1000n)).toBe(73); // 512..1023
    expect(quantizeBucket(-1n)).toBe(62);
    expect(quantizeBucket(-2n)).toBe(61);
    expect(quantizeBucket(-3n)).toBe(61);
    expect(quantizeBucket(-4n)).toBe(60);
  });

  test('lquantize buckets', () => {
    const p: LquantizeParams = { base: 0, step: 10, levels: 10 };
    expect(lquantizeBucket(p, -1n)).toBe(0);
    expect(lquantizeBucket(p, 0n)).toBe(1);
    expect(lquantizeBucket(p, 9n)).toBe(1);
    expect(lquantizeBucket(p, 10n)).toBe(2);
    expect(lquantizeBucket(p, 99n)).toBe(10);
    expect(lquantizeBucket(p, 100n)).toBe(11);
  });

  test('llquantize buckets', () => {
    const p: LlquantizeParams = { factor: 10, low: 0, high: 1, nsteps: 10 };
    // Symmetric about zero: <= -100, -90..-10, -9..-1, 0, 1..9, 10..90, >= 100 (bucket 19 holds 0).
    expect(llquantizeBucketCount(p)).toBe(39);
    expect(llquantizeBucket(p, 0n)).toBe(19);
    expect(llquantizeBucket(p, 1n)).toBe(20);
    expect(llquantizeBucket(p, 9n)).toBe(28);
    expect(llquantizeBucket(p, 10n)).toBe(29);
    expect(llquantizeBucket(p, 47n)).toBe(32);
    expect(llquantizeBucket(p, 99n)).toBe(37);
    expect(llquantizeBucket(p, 100n)).toBe(38);
    expect(llquantizeBucket(p, -1n)).toBe(18);
    expect(llquantizeBucket(p, -47n)).toBe(6);
    expect(llquantizeBucket(p, -100n)).toBe(0);
  });
});

describe('quantize', () => {
  test('values 1..1000', () => {
    // Buckets: 1:1 2:2 4:4 8:8 16:16 32:32 64:64 128:128 256:256 512:489;
    // bar = round(count * 40 / 1000).  One zero row either side.
    const values = Array.from({ length: 1000 }, (_, k) => k + 1);
    expect(formatQuantize(quantizeOf(values))).toBe(
      HEADER +
        row('0', 0, 0) +
        row('1', 0, 1) +
        row('2', 0, 2) +
        row('4', 0, 4) +
        row('8', 0, 8) +
        row('16', 1, 16) +
        row('32', 1, 32) +
        row('64', 3, 64) +
        row('128', 5, 128) +
        row('256', 10, 256) +
        row('512', 20, 489) +
        row('1024', 0, 0),
    );
  });

  test('a single value fills the bar (checked against published output)', () => {
    // Same rows as the "posvals" table of Oracle DTrace's tst.llquantize_basic.r.
    expect(formatQuantize(quantizeOf([1]))).toBe(
      HEADER +
        '               0 |                                         0        \n' +
        '               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1        \n' +
        '               2 |                                         0        \n',
    );
  });

  test('no data prints the rows around zero', () => {
    expect(formatQuantize(new Array(QUANTIZE_NBUCKETS).fill(0n))).toBe(
      HEADER + row('-1', 0, 0) + row('0', 0, 0) + row('1', 0, 0),
    );
  });

  test('negative values', () => {
    expect(formatQuantize(quantizeOf([-5, -5, -1, -1]))).toBe(
      HEADER + row('-8', 0, 0) + row('-4', 20, 2) + row('-2', 0, 0) + row('-1', 20, 2) + row('0', 0, 0),
    );
  });

  test('only negative counts draw bars to the left (published layout)', () => {
    const b: bigint[] = new Array(QUANTIZE_NBUCKETS).fill(0n);
    b[quantizeBucket(2n)] = -1n;
    // The "2" row matches the "negvals" table of tst.llquantize_basic.r.
    expect(formatQuantize(b)).toBe(
      HEADER +
        '               1                                         | 0        \n' +
        '               2 @@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@| -1       \n' +
        '               4                                         | 0        \n',
    );
  });

  test('mixed signs draw half bars around a centre line (published layout)', () => {
    const b: bigint[] = new Array(QUANTIZE_NBUCKETS).fill(0n);
    b[quantizeBucket(1n)] = 1n;
    b[quantizeBucket(2n)] = -1n;
    // Rows as in the "allvals" table of tst.llquantize_basic.r.
    expect(formatQuantize(b)).toBe(
      HEADER +
        '               0                     |                     0        \n' +
        '               1                     |@@@@@@@@@@           1        \n' +
        '               2           @@@@@@@@@@|                     -1       \n' +
        '               4                     |                     0        \n',
    );
  });
});

describe('lquantize', () => {
  const p: LquantizeParams = { base: 0, step: 2, levels: 5 };
  const fill = (values: number[]) => {
    const b: bigint[] = new Array(p.levels + 2).fill(0n);
    for (const v of values) b[lquantizeBucket(p, BigInt(v))]++;
    return b;
  };

  test('underflow and overflow rows', () => {
    // < 0: 2, [0,2): 1, [2,4): 2, [8,10): 1, >= 10: 3; total 9.
    const b = fill([-5, -5, 0, 3, 3, 9, 10, 15, 100]);
    expect(formatLquantize(p, b)).toBe(
      HEADER +
        row('< 0', 9, 2) + // 80/9 = 8.9
        row('0', 4, 1) + // 40/9 = 4.4
        row('2', 9, 2) +
        row('4', 0, 0) +
        row('6', 0, 0) +
        row('8', 4, 1) +
        row('>= 10', 13, 3), // 120/9 = 13.3
    );
  });

  test('trimmed to one zero row either side', () => {
    expect(formatLquantize(p, fill([5, 5]))).toBe(HEADER + row('2', 0, 0) + row('4', 40, 2) + row('6', 0, 0));
  });

  test('empty', () => {
    expect(formatLquantize(p, fill([]))).toBe(HEADER + row('< 0', 0, 0) + row('0', 0, 0) + row('2', 0, 0));
  });
});

describe('llquantize', () => {
  const p: LlquantizeParams = { factor: 10, low: 0, high: 1, nsteps: 10 };
  const fill = (values: number[]) => {
    const b: bigint[] = new Array(llquantizeBucketCount(p)).fill(0n);
    for (const v of values) b[llquantizeBucket(p, BigInt(v))]++;
    return b;
  };

  test('linear steps within each power of the factor', () => {
    expect(formatLlquantize(p, fill([3, 40]))).toBe(
      HEADER +
        row('2', 0, 0) +
        row('3', 20, 1) +
        ['4', '5', '6', '7', '8', '9', '10', '20', '30'].map((l) => row(l, 0, 0)).join('') +
        row('40', 20, 1) +
        row('50', 0, 0),
    );
  });

  test('zero, underflow and overflow rows (as DTrace for Linux prints them)', () => {
    expect(formatLlquantize(p, fill([0, 500, 500, 500]))).toBe(
      HEADER +
        row('-1', 0, 0) +
        row('0', 10, 1) +
        ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '20', '30', '40', '50', '60', '70', '80', '90']
          .map((l) => row(l, 0, 0))
          .join('') +
        row('>= 100', 30, 3),
    );
  });
});

describe('default layout', () => {
  test('an aggregation without keys prints " %16lld"', () => {
    // As in Oracle DTrace's tst.count_notquiet.r: "               10".
    expect(formatAggregation({ action: 'count' }, [{ keys: [], data: 10n }])).toBe('               10\n');
    expect(formatPrintaDefault({ action: 'sum' }, [{ keys: [], data: -5n }])).toBe('\n               -5\n');
  });

  test('integer keys by size, sorted as unsigned, printed like trace()', () => {
    // Checked against the aggregation half of tst.signedkeys.r (aggsortkey).
    const mk = (size: 1 | 2 | 4 | 8): AggEntry[] =>
      [-2, -1, 0, 1, 2].map((k) => ({ keys: [i(k, size)], data: BigInt(k) }));
    const opts = { aggsortkey: true };
    expect(formatAllAggregations(
      [
        { varId: 1, desc: { action: 'sum' }, entries: mk(1) },
        { varId: 2, desc: { action: 'sum' }, entries: mk(2) },
        { varId: 3, desc: { action: 'sum' }, entries: mk(4) },
        { varId: 4, desc: { action: 'sum' }, entries: mk(8) },
      ],
      opts,
    )).toBe(
      '   0                0\n' +
        '   1                1\n' +
        '   2                2\n' +
        ' 254               -2\n' +
        ' 255               -1\n' +
        '     0                0\n' +
        '     1                1\n' +
        '     2                2\n' +
        ' 65534               -2\n' +
        ' 65535               -1\n' +
        '        0                0\n' +
        '        1                1\n' +
        '        2                2\n' +
        '       -2               -2\n' +
        '       -1               -1\n' +
        '                0                0\n' +
        '                1                1\n' +
        '                2                2\n' +
        '               -2               -2\n' +
        '               -1               -1\n',
    );
  });

  test('string keys are "  %-50s"; two keys of mixed kinds', () => {
    const entries: AggEntry[] = [
      { keys: [s('bash'), i(1234, 4)], data: 7n },
      { keys: [s('sshd'), i(99, 4)], data: 3n },
      { keys: [s('bash'), i(77, 4)], data: 3n },
    ];
    const line = (name: string, pid: number, n: number) =>
      '  ' + name.padEnd(50) + ' ' + String(pid).padStart(8) + ' ' + String(n).padStart(16) + '\n';
    // By value ascending; the tie (3) is broken by the first key.
    expect(formatAggregation({ action: 'count' }, entries)).toBe(
      line('bash', 77, 3) + line('sshd', 99, 3) + line('bash', 1234, 7),
    );
  });

  test('a quantize with a key: key line, then the table, then a blank line', () => {
    expect(formatAggregation({ action: 'quantize' }, [{ keys: [s('bash')], data: quantizeOf([1]) }])).toBe(
      '  bash' + ' '.repeat(46) + HEADER + row('0', 0, 0) + row('1', 40, 1) + row('2', 0, 0) + '\n',
    );
  });

  test('avg truncates toward zero', () => {
    const d: AggDesc = { action: 'avg' };
    expect(formatAggregation(d, [{ keys: [], data: { count: 2n, total: -7n } }])).toBe(
      '               -3\n',
    );
    expect(formatAggregation(d, [{ keys: [], data: { count: 3n, total: 10n } }])).toBe('                3\n');
    expect(formatAggregation(d, [{ keys: [], data: { count: 0n, total: 0n } }])).toBe('                0\n');
  });

  test('stddev', () => {
    // 2,4,4,4,5,5,7,9: avg of squares 29, square of avg 25, sqrt 4 = 2.
    const d = { count: 8n, total: 40n, totalSquares: 232n };
    expect(stddevValue(d)).toBe(2n);
    expect(formatAggregation({ action: 'stddev' }, [{ keys: [], data: d }])).toBe('                2\n');
    // 1,2: 5/2 = 2, (3/2)^2 = 1, sqrt(1) = 1 (integer arithmetic throughout).
    expect(stddevValue({ count: 2n, total: 3n, totalSquares: 5n })).toBe(1n);
    // 5e9 and 0: the sum of squares (2.5e19) is beyond 64 bits.
    const big = 5_000_000_000n;
    expect(stddevValue({ count: 2n, total: big, totalSquares: big * big })).toBe(2_500_000_000n);
  });

  test('min and max', () => {
    expect(formatAggregation({ action: 'min' }, [{ keys: [], data: -9223372036854775808n }])).toBe(
      ' -9223372036854775808\n', // wider than the field: just the leading space
    );
    expect(formatAggregation({ action: 'max' }, [{ keys: [s('x')], data: 5n }])).toBe(
      '  x' + ' '.repeat(49) + '                5\n',
    );
  });
});

describe('sorting', () => {
  const entries: AggEntry[] = [
    { keys: [s('b')], data: 1n },
    { keys: [s('a')], data: 1n },
    { keys: [s('c')], data: 0n },
    { keys: [s('ab')], data: 5n },
  ];
  const keysOf = (e: AggEntry[]) => e.map((x) => (x.keys[0] as { value: string }).value);
  const d: AggDesc = { action: 'count' };

  test('by value, ties by key', () => {
    expect(keysOf(sortAggEntries(d, entries))).toEqual(['c', 'a', 'b', 'ab']);
  });
  test('aggsortrev', () => {
    expect(keysOf(sortAggEntries(d, entries, { aggsortrev: true }))).toEqual(['ab', 'b', 'a', 'c']);
  });
  test('aggsortkey', () => {
    expect(keysOf(sortAggEntries(d, entries, { aggsortkey: true }))).toEqual(['a', 'ab', 'b', 'c']);
    expect(keysOf(sortAggEntries(d, entries, { aggsortkey: true, aggsortrev: true }))).toEqual(['c', 'b', 'ab', 'a']);
  });
  test('aggsortkeypos starts at another key', () => {
    const two: AggEntry[] = [
      { keys: [s('a'), i(2)], data: 0n },
      { keys: [s('b'), i(1)], data: 0n },
    ];
    const first = (e: AggEntry[]) => e.map((x) => (x.keys[0] as { value: string }).value);
    expect(first(sortAggEntries(d, two, { aggsortkey: true }))).toEqual(['a', 'b']);
    expect(first(sortAggEntries(d, two, { aggsortkey: true, aggsortkeypos: 1 }))).toEqual(['b', 'a']);
    // Out of range: back to the first key.
    expect(first(sortAggEntries(d, two, { aggsortkey: true, aggsortkeypos: 5 }))).toEqual(['a', 'b']);
  });
  test('quantize sorts by the weighted sum', () => {
    const q: AggEntry[] = [
      { keys: [s('big')], data: quantizeOf([1000]) },
      { keys: [s('small')], data: quantizeOf([1, 1, 1]) },
    ];
    expect(keysOf(sortAggEntries({ action: 'quantize' }, q))).toEqual(['small', 'big']);
  });
});

describe('printa with a format', () => {
  test('keys as printf arguments, %@ the value', () => {
    const entries: AggEntry[] = [
      { keys: [s('bash'), i(12, 4)], data: 5n },
      { keys: [s('sh'), i(3, 4)], data: 2n },
    ];
    expect(formatPrinta('%-8s %5d %@8u\n', { action: 'count' }, entries)).toBe(
      'sh           3        2\n' + 'bash        12        5\n',
    );
  });

  test('keys may be left out, and %@ may repeat', () => {
    const entries: AggEntry[] = [{ keys: [s('bash'), i(12, 4)], data: 5n }];
    expect(formatPrinta('%s: %@d/%@x\n', { action: 'sum' }, entries)).toBe('bash: 5/5\n');
  });

  test('%@ of a quantize prints the table', () => {
    expect(formatPrinta('%s%@d', { action: 'quantize' }, [{ keys: [s('k')], data: quantizeOf([1]) }])).toBe(
      'k' + HEADER + row('0', 0, 0) + row('1', 40, 1) + row('2', 0, 0),
    );
  });

  test('%@ of avg divides unsigned, as pfprint_average does', () => {
    const d: AggDesc = { action: 'avg' };
    expect(formatPrinta('%@d\n', d, [{ keys: [], data: { count: 2n, total: 10n } }])).toBe('5\n');
    expect(formatPrinta('%@d\n', d, [{ keys: [], data: { count: 2n, total: -10n } }])).toBe('9223372036854775803\n');
  });

  test('%@d of a count is unsigned', () => {
    expect(formatPrinta('%@d\n', { action: 'count' }, [{ keys: [], data: -1n }])).toBe('18446744073709551615\n');
  });
});
