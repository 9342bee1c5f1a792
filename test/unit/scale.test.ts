// Issue 13's pure parts: string temporaries' slots (tstrings.ts) and the culprit of a program
// refused only with all its clauses together (rejection.ts), and clauses cut into a chain of
// programs (chain.ts).
import { describe, expect, test } from 'vitest';
import * as D from '../../src/dif/constants.js';
import type { Difo } from '../../src/dif/difo.js';
import { slotPlan } from '../../src/device/linux/tstrings.js';
import { explainRejection, sabotageForTest } from '../../src/device/linux/rejection.js';
import type { EcbPlan } from '../../src/device/linux/translate.js';
import { LINK_INSNS, cutLinks, loadChain, type ChainLink } from '../../src/device/linux/chain.js';

const difo = (insns: number[]): Difo => ({ insns, inttab: [], strtab: Buffer.alloc(0), vartab: [], rtype: { kind: 0, ctfType: 0, flags: 0, size: 8 } } as unknown as Difo);
const sets = (rd: number) => (D.DIF_OP_SETS << 24) | rd;
const push = (rs: number) => (D.DIF_OP_PUSHTR << 24) | rs;
const call = (subr: number, rd: number) => (D.DIF_OP_CALL << 24) | (subr << 8) | rd;
const flush = D.DIF_OP_FLUSHTS << 24;
const ret = (rd: number) => (D.DIF_OP_RET << 24) | rd;

describe('string temporaries', () => {
  test('a chain of joins reuses the slot of a string no longer read', () => {
    const J = D.DIF_SUBR_STRJOIN;
    const plan = slotPlan(difo([
      sets(1), push(1), push(1), call(J, 2), flush, // pc 3: slot 0
      push(2), push(1), call(J, 3), flush, //          pc 7: slot 1 (pc 3's string is read here)
      push(3), push(1), call(J, 2), flush, //          pc 11: slot 0 again
      ret(2),
    ]));
    expect([...plan.slotOf]).toEqual([[3, 0], [7, 1], [11, 0]]);
    expect(plan.count).toBe(2);
  });

  test('a string copied to another register stays alive while that one is read', () => {
    const J = D.DIF_SUBR_STRJOIN, mov = (r1: number, rd: number) => (D.DIF_OP_MOV << 24) | (r1 << 16) | rd;
    const plan = slotPlan(difo([
      sets(1), push(1), push(1), call(J, 2), flush, // pc 3
      mov(2, 4), sets(2), //                           r4 holds pc 3's string
      push(1), push(1), call(J, 3), flush, //          pc 9: pc 3's string is still in r4
      push(4), push(3), call(J, 2), flush, ret(2), //  pc 13
    ]));
    expect(plan.slotOf.get(9)).toBe(1);
    expect(plan.slotOf.get(13)).toBe(2);
  });

  test('calls that return numbers take no slot', () => {
    expect(slotPlan(difo([sets(1), push(1), call(D.DIF_SUBR_STRLEN, 2), flush, ret(2)])).count).toBe(0);
  });
});

describe('verifier rejections', () => {
  const plans = Array.from({ length: 6 }, (_, i) => ({
    epid: i + 1,
    desc: { uarg: BigInt(i), probe: { instance: 'host', provider: 'dtrace', module: '', function: '', name: 'BEGIN' } },
  })) as unknown as EcbPlan[];

  test('clauses that each load alone: the one that overflows the program is named', () => {
    const r = explainRejection({
      probe: 'dtrace:::BEGIN', code: 'E2BIG', log: 'BPF program is too large. Processed 1000001 insn\n',
      insns: Buffer.alloc(6), plans,
      translate: (ps) => Buffer.alloc(ps.length),
      load: (insns) => (insns.length > 3 ? { ok: false, code: 'E2BIG' } : { ok: true }),
    });
    expect(r.message).toBe("BPF program load for 'dtrace:::BEGIN' failed: Argument list too long: the verifier rejected clause #4 (dtrace:::BEGIN) after 3 clauses before it in the same program: BPF program is too large. Processed 1000001 insn");
  });

  test('a clause that fails alone is named alone', () => {
    const r = explainRejection({
      probe: 'dtrace:::BEGIN', code: 'EACCES', log: 'R6 !read_ok\n', insns: Buffer.alloc(6), plans,
      translate: (ps) => Buffer.from(ps.map((p) => Number(p.desc.uarg))),
      load: (insns) => (insns.includes(2) ? { ok: false } : { ok: true }),
    });
    expect(r.message).toBe("BPF program load for 'dtrace:::BEGIN' failed: Permission denied: the verifier rejected clause #3 (dtrace:::BEGIN): R6 !read_ok");
  });

  // The rejectClause test hook makes clause N unverifiable in any program holding it; the search
  // must name N within ~2*log2(60)+2 loads, not one load per clause.
  const sixty = Array.from({ length: 60 }, (_, i) => ({
    epid: i + 1,
    desc: { uarg: BigInt(i), probe: { instance: 'host', provider: 'syscall', module: '', function: 'getppid', name: 'entry' } },
  })) as unknown as EcbPlan[];
  const limit = 2 * Math.ceil(Math.log2(60)) + 2;
  for (const n of [40, 1, 60]) {
    test(`clause ${n} of 60 rejected: named by bisection in at most ${limit} loads`, () => {
      let loads = 0;
      const r = explainRejection({
        probe: 'syscall:vmlinux:getppid:entry', code: 'EACCES', log: 'R6 !read_ok\n', insns: Buffer.alloc(8 * 60), plans: sixty,
        translate: (ps) => Buffer.alloc(8 * ps.length),
        load: (insns, _log, ps) => (++loads, sabotageForTest(insns, ps, n) === insns ? { ok: true } : { ok: false, code: 'EACCES' }),
      });
      expect(r.message).toBe(`BPF program load for 'syscall:vmlinux:getppid:entry' failed: Permission denied: the verifier rejected clause #${n} (syscall::getppid:entry): R6 !read_ok`);
      expect(loads).toBeGreaterThan(0);
      expect(loads).toBeLessThanOrEqual(limit);
    });
  }

  test('a clause that loads alone but not after the others: counted loads, "after N-1 clauses"', () => {
    let loads = 0;
    const r = explainRejection({
      probe: 'dtrace:::BEGIN', code: 'E2BIG', log: 'too large\n', insns: Buffer.alloc(60), plans: sixty,
      translate: (ps) => Buffer.alloc(ps.length),
      load: (insns) => (++loads, insns.length > 39 ? { ok: false, code: 'E2BIG' } : { ok: true }),
    });
    expect(r.message).toMatch(/rejected clause #40 \(syscall::getppid:entry\) after 39 clauses before it in the same program: too large$/);
    expect(loads).toBeLessThanOrEqual(limit);
  });
});

describe('string temporaries and pointers into them', () => {
  test('strstr() of a joined string keeps the join alive while its result is read', () => {
    const J = D.DIF_SUBR_STRJOIN, S = D.DIF_SUBR_STRSTR;
    const plan = slotPlan(difo([
      sets(1), push(1), push(1), call(J, 2), flush, // pc 3: slot 0
      push(2), push(1), call(S, 3), flush, //          r3 points into pc 3's string
      sets(2), push(3), push(1), call(J, 4), flush, // pc 12: pc 3's string is read through r3
      ret(4),
    ]));
    expect(plan.slotOf.get(12)).toBe(1);
  });
});

describe('a chain of programs for one probe', () => {
  test('consecutive clauses, each link within the budget; a clause longer than it is alone', () => {
    expect(cutLinks([10, 10, 10, 10], 25)).toEqual([[0, 1], [2, 3]]);
    expect(cutLinks([10, 40, 10], 25)).toEqual([[0], [1], [2]]);
    expect(cutLinks([5], 25)).toEqual([[0]]);
  });

  test('links in clause order, each but the last calling the next; exit() in an earlier link is known', () => {
    const plan = (epid: number, exit = false) =>
      ({ epid, desc: { actions: exit ? [{ kind: D.DTRACEACT_EXIT }] : [] } }) as unknown as EcbPlan;
    const plans = [plan(1), plan(2, true), plan(3), plan(4)];
    const made: { epids: number[]; link: ChainLink }[] = [], set: [number, number][] = [];
    let fd = 100;
    const first = loadChain(plans, [LINK_INSNS / 2, LINK_INSNS / 2, LINK_INSNS / 2, LINK_INSNS], {
      translate: (ps, link) => (made.push({ epids: ps.map((p) => p.epid), link }), Buffer.alloc(8)),
      load: () => fd++,
      progArray: (n) => (expect(n).toBe(3), 7),
      setLink: (array, i, prog) => (expect(array).toBe(7), set.push([i, prog])),
    });
    expect(made.map((m) => m.epids)).toEqual([[1, 2], [3], [4]]);
    expect(made.map((m) => m.link.next)).toEqual([1, 2, undefined]);
    expect(made.map((m) => m.link.exitBefore)).toEqual([false, true, true]);
    expect(first).toBe(100);
    expect(set).toEqual([[1, 101], [2, 102]]);
  });

  test('no more links than the kernel follows tail calls: longer links then', () => {
    const plans = Array.from({ length: 100 }, (_, i) => ({ epid: i + 1, desc: { actions: [] } }) as unknown as EcbPlan);
    let links = 0;
    loadChain(plans, plans.map(() => LINK_INSNS), {
      translate: () => Buffer.alloc(8), load: () => 1, progArray: (n) => ((links = n), 2), setLink: () => {},
    });
    expect(links).toBeLessThanOrEqual(32);
    expect(links).toBeGreaterThan(1);
  });
});
