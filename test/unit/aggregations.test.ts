// Aggregations from compiler to consumer without the kernel: the actions the compiler emits
// (keys, increments, packed lquantize/llquantize parameters, printa and library actions), their
// diagnostics, the value layouts of the Linux bridge, and the consumer's per-CPU merging.
import { describe, expect, test } from 'vitest';
import * as D from '../../src/dif/constants.js';
import { compile, SourceError } from '../../src/compiler/compile.js';
import { ProbeRegistry } from '../../src/providers/registry.js';
import type { ActionDescription, Program } from '../../src/dof/program.js';
import { readDof } from '../../src/dof/reader.js';
import { writeDof } from '../../src/dof/writer.js';
import { aggKeyCount, aggValueSize, isAggIncrement } from '../../src/device/linux/aggregate.js';
import { aggDesc, aggSortOptions, mergePerCpu } from '../../src/consumer/aggregations.js';
import { formatAggValue, stddevValue } from '../../src/consumer/aggprint.js';

function program(text: string): Program {
  return compile([{ kind: 's', text, name: 'test.d' }], {
    registry: new ProbeRegistry(), options: new Map(), macroArgs: [], zdefs: true,
  }).program;
}

function actions(body: string): ActionDescription[] {
  return program(`BEGIN { ${body} }`).ecbs[0].actions;
}

function compileError(body: string): string {
  try {
    program(`BEGIN\n{\n${body}\n}`);
  } catch (e) {
    if (e instanceof SourceError) return `${e.error.tag}: line ${e.error.line}: ${e.error.message}`;
    throw e;
  }
  return 'compiled';
}

function words(...ws: bigint[]): Buffer {
  const b = Buffer.alloc(8 * ws.length);
  ws.forEach((w, i) => b.writeBigUInt64LE(BigInt.asUintN(64, w), 8 * i));
  return b;
}

describe('aggregation actions', () => {
  test('quantize with an increment: keys, then a void DIFEXPR counted in ntuple', () => {
    const acts = actions('@q[1, "a"] = quantize(5, 3);');
    expect(acts.map((a) => a.kind)).toEqual([D.DTRACEACT_DIFEXPR, D.DTRACEACT_DIFEXPR, D.DTRACEACT_DIFEXPR, D.DTRACEAGG_QUANTIZE]);
    expect(acts[3].ntuple).toBe(3);
    expect(acts[2].difo!.rtype.size).toBe(0);
    expect(isAggIncrement(acts, 2)).toBe(true);
    expect(isAggIncrement(acts, 1)).toBe(false);
    expect(aggKeyCount(acts, 3)).toBe(2);
  });

  test('lquantize and llquantize parameters are packed in the action arg, and survive DOF', () => {
    const p = program('BEGIN { @l = lquantize(1, -10, 90, 5); @ll = llquantize(1, 10, 0, 6, 20); }');
    const back = readDof(writeDof(p));
    const [l, ll] = back.ecbs[0].actions;
    expect(D.unpackLquantizeArg(l.arg)).toEqual({ base: -10, step: 5, levels: 20 });
    expect(D.unpackLlquantizeArg(ll.arg)).toEqual({ factor: 10, low: 0, high: 6, nsteps: 20 });
    expect(l.aggName).toBe('l');
  });

  test('printa: one PRINTA action per aggregation, sharing the format and the statement', () => {
    const acts = actions('@a[1] = count(); @b[2] = sum(3); printa("%d %@d %@d\\n", @a, @b);');
    const printa = acts.filter((a) => a.kind === D.DTRACEACT_PRINTA);
    expect(printa).toHaveLength(2);
    expect(printa.map((a) => a.format)).toEqual(['%d %@d %@d\n', '%d %@d %@d\n']);
    expect(printa[0].uarg).toBe(printa[1].uarg);
    expect(printa.map((a) => a.difo!.inttab)).toEqual([[1n], [2n]]);
  });

  test('clear, trunc, normalize and denormalize are library actions carrying the aggregation id', () => {
    const acts = actions('@a = count(); clear(@a); trunc(@a, 3); trunc(@a); normalize(@a, 10); denormalize(@a);');
    const lib = acts.filter((a) => a.kind === D.DTRACEACT_LIBACT).map((a) => Number(a.arg));
    expect(lib).toEqual([
      D.DT_ACT_CLEAR, D.DT_ACT_TRUNC, D.DT_ACT_TRUNC, D.DT_ACT_TRUNC, D.DT_ACT_TRUNC,
      D.DT_ACT_NORMALIZE, D.DT_ACT_NORMALIZE, D.DT_ACT_DENORMALIZE,
    ]);
  });
});

describe('aggregation diagnostics', () => {
  test.each([
    ['@ = lquantize(1, 0x100000000, 5);', 'D_LQUANT_BASEVAL: line 3: lquantize( ) argument #1 must be a 32-bit quantity'],
    ['@ = lquantize(1, x, 5);', 'D_LQUANT_BASETYPE: line 3: lquantize( ) argument #1 must be an integer constant'],
    ['@ = lquantize(1, 10, 5);', 'D_LQUANT_MISMATCH: line 3: lquantize( ) base (argument #1) must be less than limit (argument #2)'],
    ['@ = lquantize(1, 0, 10, 0);', 'D_LQUANT_STEPTYPE: line 3: lquantize( ) argument #3 must be a non-zero positive integer constant'],
    ['@ = lquantize(1, 0, 10, 0x10000);', 'D_LQUANT_STEPVAL: line 3: lquantize( ) argument #3 must be a 16-bit quantity'],
    ['@ = lquantize(1, 0, 10, 11);', 'D_LQUANT_STEPLARGE: line 3: lquantize( ) step (argument #3) too large: must have at least one quantization level'],
    ['@ = lquantize(1, 0, 100000);', 'D_LQUANT_STEPSMALL: line 3: lquantize( ) step (argument #3) too small: number of quantization levels must be a 16-bit quantity'],
    ['@a = lquantize(1, 0, 10);\n@a = lquantize(1, 0, 20);', "D_LQUANT_MATCHLIM: line 4: lquantize( ) limit (argument #2) doesn't match previous declaration: expected 10, found 20"],
    ['@a = lquantize(1, 0, 10, 1);\n@a = lquantize(1, 0, 10, 2);', "D_LQUANT_MATCHSTEP: line 4: lquantize( ) step (argument #3) doesn't match previous declaration: expected 1, found 2"],
    // DTrace for Linux's words and tags (the reference's own output).
    ['@ = llquantize(1, 10, 0, 6, 0x10000);', 'D_LLQUANT_STEPVAL: line 3: llquantize( ) argument #4 must be an unsigned 16-bit quantity'],
    ['@ = llquantize(1, 10, 0, 6, 3);', 'D_LLQUANT_STEPVAL: line 3: llquantize() argument #4 (steps) must evenly divide argument #1 (factor) when steps<factor'],
    ['@ = llquantize(1, 10, 0, 6, 30);', 'D_LLQUANT_STEPVAL: line 3: llquantize() argument #4 (steps) must evenly divide the square of argument #1 (factor) when steps>factor and lmag==0'],
    ['@ = llquantize(1, 10, 1, 6, 1000);', 'D_LLQUANT_STEPVAL: line 3: llquantize() argument #4 (steps) must evenly divide pow(argument #1 (factor), lmag (argument #2) + 1) when steps>factor and lmag>0'],
    ['@ = llquantize(1, 10, 0, 6, 0);', 'D_LLQUANT_STEPTYPE: line 3: llquantize( ) argument #4 must be a non-zero positive integer constant'],
    ['@ = llquantize(1, x, 0, 6, 10);', 'D_LLQUANT_FACTORTYPE: line 3: llquantize( ) argument #1 must be an integer constant'],
    ['@ = llquantize(1, 10, -1, 6, 10);', 'D_LLQUANT_LMAGVAL: line 3: llquantize( ) argument #2 must be an unsigned 16-bit quantity'],
    ['@ = llquantize(1, 10, 0, 19, 10);', 'D_LLQUANT_HMAGVAL: line 3: llquantize( ) argument #3 (high magnitude) will cause overflow of 64 bits'],
    ['@a = llquantize(1, 10, 0, 6, 10);\n@a = llquantize(1, 10, 1, 6, 10);', "D_LLQUANT_MATCHLMAG: line 4: llquantize() lmag (argument #2) doesn't match previous declaration: expected 0, found 1"],
    ['@ = quantize(1, 2, 3);', 'D_PROTO_LEN: line 3: quantize( ) prototype mismatch: 3 args passed, at most 2 expected'],
    ['@ = lquantize(1, 2);', 'D_PROTO_LEN: line 3: lquantize( ) prototype mismatch: 2 args passed, at least 3 expected'],
    ['@ = quantize(1, "a");', 'D_PROTO_ARG: line 3: quantize( ) increment value (argument #2) must be of scalar type'],
    ['printa(@nope);', 'D_IDENT_UNDEF: line 3: failed to resolve @nope: Unknown variable name'],
    ['@a = count();\nprinta("%d\\n", 1);', 'D_PRINTA_AGGARG: line 4: printa( ) argument #2 is incompatible with prototype:\n\tprototype: aggregation\n\t argument: int'],
    ['@a = count();\ntrunc(@a, 1, 2);', 'D_PROTO_LEN: line 4: trunc( ) prototype mismatch: 3 args passed, at most 2 expected'],
    ['@a = count();\nnormalize(@a);', 'D_PROTO_LEN: line 4: normalize( ) prototype mismatch: 1 arg passed, 2 expected'],
    ['clear(@none);', 'D_IDENT_UNDEF: line 3: failed to resolve @none: Unknown variable name'],
  ])('%s', (body, want) => {
    expect(compileError(body)).toBe(want);
  });
});

describe('value layouts and merging', () => {
  test('value sizes of the Linux bridge', () => {
    expect(aggValueSize(D.DTRACEAGG_COUNT, 0n)).toBe(8);
    expect(aggValueSize(D.DTRACEAGG_MIN, 0n)).toBe(16);
    expect(aggValueSize(D.DTRACEAGG_STDDEV, 0n)).toBe(32);
    expect(aggValueSize(D.DTRACEAGG_QUANTIZE, 0n)).toBe(127 * 8);
    expect(aggValueSize(D.DTRACEAGG_LQUANTIZE, D.packLquantizeArg({ base: 0, step: 10, levels: 10 }))).toBe(12 * 8);
    // factor 10, magnitudes 0..2, 10 steps, mirrored below zero: <= -1000, -900..-1, 0,
    // 1..900, >= 1000
    expect(aggValueSize(D.DTRACEAGG_LLQUANTIZE, D.packLlquantizeArg({ factor: 10, low: 0, high: 2, nsteps: 10 }))).toBe(57 * 8);
  });

  test('min and max merge only the CPUs that saw a value', () => {
    const cpu0 = words(-5n, 1n), idle = words(0n, 0n), cpu1 = words(7n, 1n);
    expect(mergePerCpu(D.DTRACEAGG_MIN, [idle, cpu1])).toBe(7n);
    expect(mergePerCpu(D.DTRACEAGG_MAX, [cpu0, idle])).toBe(-5n);
    expect(mergePerCpu(D.DTRACEAGG_MIN, [cpu0, cpu1])).toBe(-5n);
  });

  test('stddev sums squares in 128 bits across CPUs', () => {
    // Each CPU saw 2^32 once: a square of 2^64 is the high word 1.
    const one = words(1n, 1n << 32n, 0n, 1n);
    const d = mergePerCpu(D.DTRACEAGG_STDDEV, [one, words(1n, 1n << 33n, 0n, 4n)]);
    expect(d).toEqual({ count: 2n, total: 3n << 32n, totalSquares: 5n << 64n });
    expect(stddevValue(d as never)).toBe(1n << 31n);
  });

  test('quantize buckets add up per CPU', () => {
    const a = Buffer.alloc(127 * 8), b = Buffer.alloc(127 * 8);
    a.writeBigInt64LE(3n, 64 * 8), b.writeBigInt64LE(4n, 64 * 8), b.writeBigInt64LE(-1n, 10 * 8);
    const m = mergePerCpu(D.DTRACEAGG_QUANTIZE, [a, b]) as bigint[];
    expect(m[64]).toBe(7n);
    expect(m[10]).toBe(-1n);
  });

  test('normalized values print divided by the factor', () => {
    const desc = { id: 1, name: 'a', action: D.DTRACEAGG_SUM, arg: 0n, keys: [], keySize: 8, valueSize: 8 };
    expect(formatAggValue(aggDesc(desc, 10n), 4567n)).toBe(' ' + '456'.padStart(16));
    const avg = { ...desc, action: D.DTRACEAGG_AVG, valueSize: 16 };
    expect(formatAggValue(aggDesc(avg, 10n), { count: 2n, total: 300n })).toBe(' ' + '15'.padStart(16));
  });

  test('sorting options come from the option map', () => {
    const o = new Map([['aggsortkey', 'set'], ['aggsortrev', 'unset'], ['aggsortkeypos', '2']]);
    expect(aggSortOptions(o)).toEqual({ aggsortkey: true, aggsortrev: false, aggsortkeypos: 2, aggsortpos: undefined });
  });
});
