// The one record walk (src/consumer/walk.ts): which records form one action. The three renderers
// (text, oformat=json, the library API) rely on this grouping; their own tests check the output.

import { describe, expect, test } from 'vitest';
import * as D from '../../src/dif/constants.js';
import type { RecordDescription } from '../../src/device/device.js';
import type { Aggregations } from '../../src/consumer/aggregations.js';
import { type ActionRenderer, walkActions } from '../../src/consumer/walk.js';
import type { Value } from '../../src/consumer/records.js';

const int = (action: number, offset: number, extra: Partial<RecordDescription> = {}): RecordDescription =>
  ({ action, size: 8, offset, alignment: 8, arg: 0n, uarg: 0n, type: 'int', ...extra });

/** Every callback as a line naming the action and its values. */
function walk(recs: RecordDescription[], data: Buffer, aggs = {} as Aggregations): string[] {
  const seen: string[] = [];
  const show = (v: Value) => (v.kind === 'int' ? String(v.value) : v.kind === 'string' ? v.value : v.value.toString('hex'));
  const out: ActionRenderer = {
    printf: (r, args) => seen.push(`printf ${r.action} ${r.format} [${args.map(show).join(',')}]`),
    trace: (_r, v) => seen.push(`trace ${show(v)}`),
    print: (_r, b) => seen.push(`print ${b.toString('hex')}`),
    printa: (_r, ids) => seen.push(`printa ${ids.join(',')}`),
    setopt: (_r, o, v) => seen.push(`setopt ${o}=${v}`),
    tracemem: (_r, b) => seen.push(`tracemem ${b.toString('hex')}`),
    exit: (_r, s) => seen.push(`exit ${s}`),
    symbolic: (r) => seen.push(`symbolic ${r.action}`),
  };
  walkActions(recs, data, aggs, out);
  return seen;
}

function u64s(...v: bigint[]): Buffer {
  const b = Buffer.alloc(8 * v.length);
  v.forEach((x, i) => b.writeBigInt64LE(x, 8 * i));
  return b;
}

describe('walkActions', () => {
  test("printf() takes as many following trace records as its format has conversions", () => {
    const recs = [int(D.DTRACEACT_PRINTF, 0, { format: '%d %d\n' }), int(D.DTRACEACT_DIFEXPR, 8), int(D.DTRACEACT_DIFEXPR, 16)];
    expect(walk(recs, u64s(1n, 2n, 3n))).toEqual([`printf ${D.DTRACEACT_PRINTF} %d %d\n [1,2]`, 'trace 3']);
  });

  test('system() and freopen() group their arguments like printf()', () => {
    const recs = [int(D.DTRACEACT_FREOPEN, 0, { format: '/tmp/%d.%d' }), int(D.DTRACEACT_DIFEXPR, 8), int(D.DTRACEACT_SYSTEM, 16, { format: 'true' })];
    expect(walk(recs, u64s(7n, 8n, 0n))).toEqual([`printf ${D.DTRACEACT_FREOPEN} /tmp/%d.%d [7,8]`, `printf ${D.DTRACEACT_SYSTEM} true []`]);
  });

  test('an expression statement (size 0) renders nothing', () => {
    expect(walk([int(D.DTRACEACT_DIFEXPR, 0, { size: 0 }), int(D.DTRACEACT_DIFEXPR, 0)], u64s(5n))).toEqual(['trace 5']);
  });

  test("tracemem()'s dynamic size shows fewer bytes, never more, and holds for one tracemem only", () => {
    const mem = (offset: number) => ({ action: D.DTRACEACT_TRACEMEM, size: 4, offset, alignment: 1, arg: 0n, uarg: 0n, type: 'bytes' as const });
    const data = Buffer.concat([u64s(2n), Buffer.from('aabbccdd', 'hex'), Buffer.alloc(4), u64s(9n), Buffer.from('11223344', 'hex'), Buffer.from('55667788', 'hex')]);
    const recs = [int(D.DTRACEACT_TRACEMEM_DYNSIZE, 0), mem(8), int(D.DTRACEACT_TRACEMEM_DYNSIZE, 16), mem(24), mem(28)];
    expect(walk(recs, data)).toEqual(['tracemem aabb', 'tracemem 11223344', 'tracemem 55667788']);
  });

  test("printa() joins its statement's consecutive records of one uarg", () => {
    const recs = [int(D.DTRACEACT_PRINTA, 0, { uarg: 4n }), int(D.DTRACEACT_PRINTA, 8, { uarg: 4n }), int(D.DTRACEACT_PRINTA, 16, { uarg: 5n })];
    expect(walk(recs, u64s(1n, 2n, 3n))).toEqual(['printa 1,2', 'printa 3']);
  });

  test('trunc() takes its operand record and acts on the aggregations', () => {
    const calls: string[] = [];
    const aggs = { trunc: (id: number, n: bigint) => calls.push(`trunc ${id} ${n}`), clear: (id: number) => calls.push(`clear ${id}`) } as unknown as Aggregations;
    const libact = (offset: number, arg: number) => int(D.DTRACEACT_LIBACT, offset, { arg: BigInt(arg) });
    const recs = [libact(0, D.DT_ACT_TRUNC), libact(8, D.DT_ACT_TRUNC), libact(16, D.DT_ACT_CLEAR), int(D.DTRACEACT_EXIT, 24, { size: 4, alignment: 4 })];
    expect(walk(recs, u64s(3n, 10n, 4n, 2n), aggs)).toEqual(['exit 2']);
    expect(calls).toEqual(['trunc 3 10', 'clear 4']);
  });
});
