// D variables beyond global scalars: the DIF the code generator emits for thread-locals,
// clause-locals and associative arrays, its diagnostics, what that DIF computes on the reference
// machine, and how the Linux bridge lays the variables out.
import { describe, expect, test } from 'vitest';
import * as D from '../../src/dif/constants.js';
import { difOp, difVar } from '../../src/dif/builder.js';
import { compileError, compileScript, fire as fireClauses } from '../helpers/dif.js';
import type { Program } from '../../src/dof/program.js';
import type { Difo } from '../../src/dif/difo.js';
import { DifMachine, type ProbeContext } from '../../src/dif/machine.js';
import { planVariables } from '../../src/device/linux/variables.js';

const program = compileScript;

function difos(p: Program): Difo[] {
  return p.ecbs.flatMap((e) => [e.predicate, ...e.actions.map((a) => a.difo)]).filter((d): d is Difo => d !== null);
}

/** The opcodes (and their variable ids) of every DIF object, in order. */
function ops(p: Program): string[] {
  return difos(p).flatMap((d) => [...d.insns].map((i) => D.DIF_OP_NAMES[difOp(i)] ?? String(difOp(i))));
}

const fire = (text: string, m = new DifMachine(), ctx: ProbeContext = { tid: 1n }) => fireClauses(text, m, ctx, true);

describe('code generation', () => {
  test('thread-locals use LDTS/STTS with thread scope', () => {
    const p = program('BEGIN { self->x = 1; trace(self->x); }');
    const o = ops(p);
    expect(o).toContain('stts');
    expect(o).toContain('ldts');
    const v = difos(p).flatMap((d) => d.vartab).find((e) => e.name === 'x')!;
    expect(v).toMatchObject({ id: D.DIF_VAR_OTHER_UBASE, scope: D.DIFV_SCOPE_THREAD, kind: D.DIFV_KIND_SCALAR });
  });

  test('clause-locals use LDLS/STLS with local scope', () => {
    const p = program('BEGIN { this->x = "s"; trace(this->x); }');
    expect(ops(p)).toEqual(expect.arrayContaining(['stls', 'ldls']));
    const v = difos(p).flatMap((d) => d.vartab).find((e) => e.name === 'x')!;
    expect(v).toMatchObject({ scope: D.DIFV_SCOPE_LOCAL, type: { kind: D.DIF_TYPE_STRING } });
  });

  test('associative arrays push their keys, then LDGAA/STGAA, then flush the tuple', () => {
    const p = program('BEGIN { a[1, "k"] = 2; trace(a[1, "k"]); }');
    const store = [...difos(p)[0].insns].map((i) => D.DIF_OP_NAMES[difOp(i)]);
    // Each constant key is pushed as it is computed (no register held for the next).
    expect(store.slice(-4)).toEqual(['pushtr', 'stgaa', 'flushts', 'ret']);
    expect(store.filter((o) => o.startsWith('push'))).toEqual(['pushtv', 'pushtr']);
    expect(store.indexOf('pushtv')).toBeLessThan(store.indexOf('sets'));
    const load = [...difos(p)[1].insns].map((i) => D.DIF_OP_NAMES[difOp(i)]);
    expect(load.slice(-4)).toEqual(['pushtr', 'ldgaa', 'flushts', 'ret']);
  });

  test('thread-local arrays use LDTAA/STTAA', () => {
    expect(ops(program('BEGIN { self->a["k"] = 2; trace(self->a["k"]); }'))).toEqual(expect.arrayContaining(['sttaa', 'ldtaa']));
  });

  test('global scalars and arrays share the global id space; thread-locals have their own', () => {
    const p = program('BEGIN { g = 1; a[1] = 2; self->t = 3; }');
    const ids = new Map(difos(p).flatMap((d) => d.vartab).map((v) => [v.name, v.id]));
    expect(ids.get('g')).toBe(0x500);
    expect(ids.get('a')).toBe(0x501);
    expect(ids.get('t')).toBe(0x500);
  });

  test('++ creates an int64_t; compound assignment reads, computes and stores', () => {
    const p = program('BEGIN { self->n++; self->n += 2; }');
    const o = ops(p);
    expect(o.filter((x) => x === 'stts').length).toBe(2);
    const v = difos(p).flatMap((d) => d.vartab).find((e) => e.name === 'n')!;
    expect(v.type.size).toBe(8);
  });

  test('declarations type variables before use', () => {
    const p = program('self int d; this string s; int a[string, int]; BEGIN { trace(self->d); trace(this->s); trace(a["x", 1]); }');
    const vt = difos(p).flatMap((d) => d.vartab);
    expect(vt.find((v) => v.name === 'd')!.type.size).toBe(4);
    expect(vt.find((v) => v.name === 's')!.type.kind).toBe(D.DIF_TYPE_STRING);
    expect(vt.find((v) => v.name === 'a')!.kind).toBe(D.DIFV_KIND_ARRAY);
    void difVar;
  });
});

describe('diagnostics', () => {
  test.each([
    ['BEGIN { trace(self->x); }', 'D_VAR_UNDEF: self->x has not yet been declared or assigned'],
    ['BEGIN { trace(this->x); }', 'D_VAR_UNDEF: this->x has not yet been declared or assigned'],
    ['BEGIN { trace(a[1]); }', 'D_VAR_UNDEF: a has not yet been declared or assigned'],
    ['BEGIN { self->x += 1; }', 'D_VAR_UNDEF: self->x has not yet been declared or assigned'],
    ['BEGIN { a[1] = 1; trace(a[1, 2]); }', 'D_PROTO_LEN: a[ ] prototype mismatch: 2 keys passed, 1 expected'],
    ['BEGIN { a["x"] = 1; trace(a[1]); }', 'D_PROTO_ARG: a[ ] key #1 is incompatible with prototype:\n\tprototype: string\n\t      key: int'],
    ['BEGIN { self->s = "x"; self->s = 1; }', 'D_OP_INCOMPAT: operands have incompatible types: "string" = "int"'],
    ['BEGIN { a[1] = 1; a = 2; }', "D_IDENT_BADREF: associative array 'a' may not be referenced as scalar"],
    ['self int x; self string x;', 'D_DECL_IDRED: identifier redeclared: x\n\t current: scalar string\n\tprevious: scalar int'],
  ])('%s', (text, want) => {
    expect(compileError(text)).toBe(want);
  });
});

describe('on the reference machine', () => {
  test('thread-locals are per thread and freed by 0', () => {
    const m = new DifMachine();
    const d = 'BEGIN /tid == 1/ { self->x = 5; } BEGIN { trace(self->x); }';
    expect(fire(d, m, { tid: 1n })).toEqual([5n]);
    expect(fire(d, m, { tid: 2n })).toEqual([0n]);
    expect(fire('BEGIN { self->x = 5; } BEGIN { self->x = 0; } BEGIN { trace(self->x); }', m, { tid: 1n })).toEqual([0n]);
  });

  test('arrays with tuple keys of mixed types, deletion, ++ and compound assignment', () => {
    expect(fire('BEGIN { a[1, "x"] = 4; a[1, "x"] *= 3; a[2, "x"]++; a[3, "y"] = 1; a[3, "y"] = 0; trace(a[1, "x"]); trace(a[2, "x"]); trace(a[3, "y"]); }'))
      .toEqual([12n, 1n, 0n]);
  });

  test('++ creates a global never seen before, as an int64_t', () => {
    expect(fire('BEGIN { n++; ++n; n--; trace(n); }')).toEqual([1n]);
  });

  test('clause-locals are shared by the clauses of one firing', () => {
    expect(fire('BEGIN { this->v = 3; } BEGIN { this->v += 4; trace(this->v); }')).toEqual([7n]);
  });
});

describe('Linux layout', () => {
  test('key and value sizes follow the largest tuple and string values; dynvarsize bounds entries', () => {
    const p = program('BEGIN { a[1, "k"] = 2; self->t = 1; }');
    const plan = planVariables(p, 256, 1024 * 1024);
    expect(plan.keySize).toBe(16 + 8 + 256);
    expect(plan.valueSize).toBe(8);
    expect(plan.dynamic.size).toBe(2);
    // DTrace for Linux's accounting: 12 bytes + keys (an integer 4, a string strsize) + value.
    expect(plan.capacity).toBe(Math.floor(1024 * 1024 / (12 + 4 + 256 + 4)));
    const s = planVariables(program('BEGIN { self->s = "x"; }'), 64, 32);
    expect(s.valueSize).toBe(64);
    expect(s.capacity).toBe(1); // at least one variable fits, as in DTrace
  });

  test('clause-locals get per-CPU scratch slots, strings strsize bytes', () => {
    const plan = planVariables(program('BEGIN { this->a = 1; this->s = "x"; this->b = 2; }'), 128, 1 << 20);
    expect([...plan.locals.values()].map((l) => l.string)).toEqual([false, true, false]);
    const offs = [...plan.locals.values()].map((l) => l.offset);
    expect(offs[1] - offs[0]).toBe(8);
    expect(offs[2] - offs[1]).toBe(128);
    expect(plan.dynamic.size).toBe(0);
  });
});
