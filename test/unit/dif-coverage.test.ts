// Coverage of the reference DIF machine: every DIF instruction of the specification's chapter 8,
// every subroutine of chapter 10 the machine implements, and every failure mode, each with a test
// that runs DIF on the machine and checks what DTrace computes or reports.
//
// Each test says what it covers (`cover([...], title, fn)`), at collection time; the last block
// enumerates the opcode table (DIF_OP_NAMES), the machine's subroutine table (MACHINE_SUBROUTINES)
// and the fault codes, and fails if any of them has no test -- so coverage cannot silently shrink
// when an instruction or subroutine is added. Subroutines the machine does not implement (they need
// kernel state it does not model) are listed in NOT_ON_MACHINE and must refuse clearly.
import { describe, expect, test } from 'vitest';
import * as D from '../../src/dif/constants.js';
import {
  DifBuilder, encodeAllocs, encodeBranch, encodeCall, encodeCmp, encodeCopys, encodeFlushts, encodeLda,
  encodeLdv, encodeLoad, encodeMov, encodeNop, encodeNot, encodePopts, encodePushts, encodeR, encodeRet,
  encodeStore, encodeStv, encodeTst, encodeXlate,
} from '../../src/dif/builder.js';
import { DifFault, DifLoadError, DifMachine, type ProbeContext } from '../../src/dif/machine.js';
import { AF_INET, AF_INET6, MACHINE_SUBROUTINES } from '../../src/dif/machine-subr.js';
import { SUBROUTINES, SUBROUTINE_BY_NAME } from '../../src/dif/subroutines.js';
import type { DifType, DifVar, Difo } from '../../src/dif/difo.js';

const INT: DifType = { kind: D.DIF_TYPE_CTF, ckind: D.CTF_K_INTEGER, flags: 0, size: 8 };
const STR: DifType = { kind: D.DIF_TYPE_STRING, ckind: 0, flags: D.DIF_TF_BYREF, size: 256 };
const U = (v: bigint): bigint => BigInt.asUintN(64, v);

// ---------------------------------------------------------------------------------------------
// Coverage registry

const covered = new Set<string>();

/** Define a test and record, when the file is collected, which opcodes/subroutines/faults it covers. */
function cover(what: string[], title: string, fn: () => void): void {
  for (const w of what) covered.add(w);
  test(`${title} [${what.join(' ')}]`, fn);
}
const op = (name: string): string => `op:${name}`;
const subr = (name: string): string => `subr:${name}`;
const flt = (code: number): string => `fault:${D.faultMessage(code)}`;

// ---------------------------------------------------------------------------------------------
// DIF helpers

function build(body: (b: DifBuilder) => void, rtype: DifType = INT, vartab: DifVar[] = []): Difo {
  const b = new DifBuilder();
  for (const v of vartab) b.variable(v);
  body(b);
  return b.finish(rtype);
}

function raw(insns: number[], extra: Partial<Difo> = {}): Difo {
  return { insns: Uint32Array.from(insns), strtab: Buffer.alloc(0), inttab: [], vartab: [], rtype: INT, ...extra };
}

function run(d: Difo, ctx: ProbeContext = {}, m = new DifMachine()): bigint {
  return m.run(d, ctx).value;
}

function fault(f: () => unknown): DifFault {
  try {
    f();
  } catch (e) {
    if (e instanceof DifFault) return e;
    throw e;
  }
  throw new Error('expected a fault, but the DIF ran to completion');
}

function loadError(f: () => unknown): DifLoadError {
  try {
    f();
  } catch (e) {
    if (e instanceof DifLoadError) return e;
    throw e;
  }
  throw new Error('expected the DIF object to be rejected');
}

function binop(opcode: number, a: bigint, b: bigint): Difo {
  return build((d) => {
    d.setx(a, 1);
    d.setx(b, 2);
    d.emit(encodeR(opcode, 1, 2, 3));
    d.emit(encodeRet(3));
  });
}

const v = (name: string, id: number, scope: number, kind: number, type: DifType = INT): DifVar =>
  ({ name, id, kind, scope, flags: 0, type });

type Arg = bigint | string;

/** Call a subroutine with arguments pushed on the tuple stack (strings by reference, integers by value). */
function callDifo(name: string, args: Arg[], rtype: DifType = INT): Difo {
  const n = SUBROUTINE_BY_NAME.get(name)?.subr;
  if (n === undefined) throw new Error(`no subroutine ${name}`);
  return build((d) => {
    for (const a of args) {
      if (typeof a === 'string') {
        d.sets(a, 1);
        d.emit(encodePushts(D.DIF_OP_PUSHTR, D.DIF_TYPE_STRING, 0, 1));
      } else {
        d.setx(a, 1);
        d.emit(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, 1));
      }
    }
    d.emit(encodeCall(n, 2));
    d.emit(encodeRet(2));
  }, rtype);
}

function callInt(name: string, args: Arg[], m = new DifMachine(), ctx: ProbeContext = {}): bigint {
  return m.run(callDifo(name, args), ctx).value;
}

function callStr(name: string, args: Arg[], m = new DifMachine(), ctx: ProbeContext = {}): string | null {
  const r = m.run(callDifo(name, args, STR), ctx);
  return r.value === 0n ? null : r.string!;
}

/** The fault DTrace reports for a failing call: its message (with the address) and DIF offset. */
function callFault(name: string, args: Arg[], m = new DifMachine(), ctx: ProbeContext = {}): string {
  const f = fault(() => m.run(callDifo(name, args, INT), ctx));
  return f.message;
}

const KADDR = 0xffff_8880_0000_1000n;
const UADDR = 0x7f00_0000_1000n;

// ---------------------------------------------------------------------------------------------
// Chapter 8: instructions

describe('arithmetic and logic instructions', () => {
  const cases: [string, number, bigint, bigint, bigint][] = [
    ['or', D.DIF_OP_OR, 0xf0n, 0x0fn, 0xffn],
    ['xor', D.DIF_OP_XOR, 0xffn, 0x0fn, 0xf0n],
    ['and', D.DIF_OP_AND, 0xffn, 0x3cn, 0x3cn],
    ['sll', D.DIF_OP_SLL, 7n, 3n, 56n],
    ['srl', D.DIF_OP_SRL, U(-8n), 1n, U(-8n) >> 1n],
    ['sra', D.DIF_OP_SRA, U(-8n), 1n, U(-4n)],
    ['sub', D.DIF_OP_SUB, 2n, 7n, U(-5n)],
    ['add', D.DIF_OP_ADD, U(-1n), 1n, 0n],
    ['mul', D.DIF_OP_MUL, 7n, U(-6n), U(-42n)],
    ['sdiv', D.DIF_OP_SDIV, U(-7n), 2n, U(-3n)],
    ['udiv', D.DIF_OP_UDIV, 7n, 2n, 3n],
    ['srem', D.DIF_OP_SREM, U(-7n), 2n, U(-1n)],
    ['urem', D.DIF_OP_UREM, 7n, 2n, 1n],
  ];
  for (const [name, opcode, a, b, want] of cases) {
    cover([op(name)], `${name}`, () => expect(run(binop(opcode, a, b))).toBe(want));
  }
  // The acceptance example: x = 7; y = 2; x / y, x % y, -x / y, x << 3 -> 3 1 -3 56.
  cover([op('sdiv'), op('srem'), op('sll')], 'x / y, x % y, -x / y, x << 3 with x = 7, y = 2', () => {
    expect(run(binop(D.DIF_OP_SDIV, 7n, 2n))).toBe(3n);
    expect(run(binop(D.DIF_OP_SREM, 7n, 2n))).toBe(1n);
    expect(BigInt.asIntN(64, run(binop(D.DIF_OP_SDIV, U(-7n), 2n)))).toBe(-3n);
    expect(run(binop(D.DIF_OP_SLL, 7n, 3n))).toBe(56n);
  });
  for (const [name, opcode] of [['sdiv', D.DIF_OP_SDIV], ['udiv', D.DIF_OP_UDIV], ['srem', D.DIF_OP_SREM], ['urem', D.DIF_OP_UREM]] as const) {
    cover([op(name), flt(D.DTRACEFLT_DIVZERO)], `${name} by zero is DTrace's divide-by-zero at the instruction`, () => {
      const f = fault(() => run(binop(opcode, 1n, 0n)));
      expect(f.fault).toBe(D.DTRACEFLT_DIVZERO);
      expect(f.message).toBe('divide-by-zero');
      expect(f.offset).toBe(8); // the third instruction
      expect(f.where(1)).toBe('divide-by-zero in action #1 at DIF offset 8');
    });
  }
  cover([op('not'), op('mov'), op('nop'), op('setx'), op('ret')], 'not, mov, nop, setx and ret', () => {
    expect(run(build((d) => {
      d.setx(0x0fn, 1);
      d.emit(encodeNop());
      d.emit(encodeNot(1, 2));
      d.emit(encodeMov(2, 3));
      d.emit(encodeRet(3));
    }))).toBe(U(~0x0fn));
    // %r0 always reads 0.
    expect(run(raw([encodeRet(0)]))).toBe(0n);
  });
  cover([op('sets')], 'sets yields the address of a string in the DIF object string table', () => {
    const r = new DifMachine().run(build((d) => { d.sets('hello', 1); d.emit(encodeRet(1)); }, STR));
    expect(r.string).toBe('hello');
  });
});

describe('comparisons and branches', () => {
  /** 1 when `branch` is taken after cmp a, b (or tst a when b is null). */
  function taken(branchOp: number, a: bigint, b: bigint | null): bigint {
    return run(raw([
      encodeR(D.DIF_OP_SETX, 0, 0, 1) | (0 << 8), // setx inttab[0] -> %r1
      b === null ? encodeNop() : encodeR(D.DIF_OP_SETX, 0, 1, 2), // setx inttab[1] -> %r2
      b === null ? encodeTst(1) : encodeCmp(D.DIF_OP_CMP, 1, 2),
      encodeBranch(branchOp, 6),
      encodeR(D.DIF_OP_SETX, 0, 2, 3), // 0
      encodeRet(3),
      encodeR(D.DIF_OP_SETX, 0, 3, 3), // 1
      encodeRet(3),
    ], { inttab: [a, b ?? 0n, 0n, 1n] }));
  }
  const M1 = U(-1n);
  const cases: [string, number, [bigint, bigint, bigint][]][] = [
    ['ba', D.DIF_OP_BA, [[1n, 2n, 1n], [2n, 1n, 1n]]],
    ['be', D.DIF_OP_BE, [[3n, 3n, 1n], [3n, 4n, 0n]]],
    ['bne', D.DIF_OP_BNE, [[3n, 3n, 0n], [3n, 4n, 1n]]],
    ['bg', D.DIF_OP_BG, [[2n, 1n, 1n], [1n, 1n, 0n], [M1, 1n, 0n]]],
    ['bgu', D.DIF_OP_BGU, [[2n, 1n, 1n], [1n, 1n, 0n], [M1, 1n, 1n]]],
    ['bge', D.DIF_OP_BGE, [[1n, 1n, 1n], [0n, 1n, 0n], [M1, 0n, 0n]]],
    ['bgeu', D.DIF_OP_BGEU, [[1n, 1n, 1n], [0n, 1n, 0n], [M1, 0n, 1n]]],
    ['bl', D.DIF_OP_BL, [[0n, 1n, 1n], [1n, 1n, 0n], [M1, 0n, 1n]]],
    ['blu', D.DIF_OP_BLU, [[0n, 1n, 1n], [1n, 1n, 0n], [M1, 0n, 0n]]],
    ['ble', D.DIF_OP_BLE, [[1n, 1n, 1n], [2n, 1n, 0n], [M1, 0n, 1n]]],
    ['bleu', D.DIF_OP_BLEU, [[1n, 1n, 1n], [2n, 1n, 0n], [M1, 0n, 0n]]],
  ];
  for (const [name, opcode, rows] of cases) {
    cover([op(name), op('cmp')], `${name} after cmp`, () => {
      for (const [a, b, want] of rows) expect(taken(opcode, a, b), `${name} ${a} ${b}`).toBe(want);
    });
  }
  cover([op('tst'), op('be'), op('bne')], 'tst sets the condition codes from one register', () => {
    expect(taken(D.DIF_OP_BE, 0n, null)).toBe(1n);
    expect(taken(D.DIF_OP_BE, 5n, null)).toBe(0n);
    expect(taken(D.DIF_OP_BNE, 5n, null)).toBe(1n);
  });
  cover([op('scmp')], 'scmp compares strings by bytes, NULL as ""', () => {
    const cmp = (a: string, b: string) => run(build((d) => {
      d.sets(a, 1);
      d.sets(b, 2);
      d.emit(encodeCmp(D.DIF_OP_SCMP, 1, 2));
      const less = d.newLabel();
      const eq = d.newLabel();
      d.branch(D.DIF_OP_BL, less);
      d.branch(D.DIF_OP_BE, eq);
      d.setx(1n, 3);
      d.emit(encodeRet(3));
      d.placeLabel(less);
      d.setx(U(-1n), 3);
      d.emit(encodeRet(3));
      d.placeLabel(eq);
      d.setx(0n, 3);
      d.emit(encodeRet(3));
    }));
    expect(cmp('abc', 'abd')).toBe(U(-1n));
    expect(cmp('abc', 'abc')).toBe(0n);
    expect(cmp('b', 'abc')).toBe(1n);
    expect(cmp('', 'a')).toBe(U(-1n));
  });
  cover([op('ba')], 'a backward branch is refused when the DIF object is loaded', () => {
    const e = loadError(() => run(raw([encodeNop(), encodeBranch(D.DIF_OP_BA, 0), encodeRet(0)])));
    expect(e.message).toContain('backward branch to 0');
  });
});

describe('loads and stores', () => {
  const loads: [string, number, number, bigint][] = [
    // name, opcode, size, expected value of the bytes 0x80 0x81 ... read at the start
    ['ldsb', D.DIF_OP_LDSB, 1, U(-128n)],
    ['ldsh', D.DIF_OP_LDSH, 2, U(BigInt.asIntN(16, 0x8180n))],
    ['ldsw', D.DIF_OP_LDSW, 4, U(BigInt.asIntN(32, 0x83828180n))],
    ['ldub', D.DIF_OP_LDUB, 1, 0x80n],
    ['lduh', D.DIF_OP_LDUH, 2, 0x8180n],
    ['lduw', D.DIF_OP_LDUW, 4, 0x83828180n],
    ['ldx', D.DIF_OP_LDX, 8, 0x8786858483828180n],
  ];
  const bytes = Uint8Array.from({ length: 16 }, (_, i) => 0x80 + i);
  const loadDifo = (opcode: number, addr: bigint) => build((d) => {
    d.setx(addr, 1);
    d.emit(encodeLoad(opcode, 1, 2));
    d.emit(encodeRet(2));
  });
  for (const [name, opcode, size, want] of loads) {
    cover([op(name), flt(D.DTRACEFLT_BADADDR), flt(D.DTRACEFLT_BADALIGN)], `${name} from kernel memory, bad address, bad alignment`, () => {
      const m = new DifMachine();
      m.mapKernel(KADDR, bytes);
      expect(run(loadDifo(opcode, KADDR), {}, m)).toBe(want);
      const bad = fault(() => run(loadDifo(opcode, 0x10n), {}, m));
      expect(bad.message).toBe('invalid address (0x10)');
      expect(bad.offset).toBe(4);
      if (size > 1) expect(fault(() => run(loadDifo(opcode, KADDR + 1n), {}, m)).message).toBe(`invalid alignment (0x${(KADDR + 1n).toString(16)})`);
    });
    const rname = `r${name}`;
    cover([op(rname), flt(D.DTRACEFLT_KPRIV)], `${rname}: restricted loads read DTrace memory, not the kernel's, without kernel privilege`, () => {
      const ropcode = D.DIF_OP_NAMES.indexOf(rname);
      const m = new DifMachine({ kernelAccess: false });
      m.mapKernel(KADDR, bytes);
      expect(fault(() => run(loadDifo(ropcode, KADDR), {}, m)).message).toBe('invalid kernel access');
      // The same bytes copied to scratch load fine.
      const ok = build((d) => {
        d.setx(16n, 1);
        d.emit(encodeAllocs(1, 2));
        d.setx(0x8786858483828180n, 3);
        d.emit(encodeStore(D.DIF_OP_STX, 3, 2));
        d.emit(encodeLoad(ropcode, 2, 4));
        d.emit(encodeRet(4));
      });
      expect(run(ok, {}, m)).toBe(want);
    });
    const uname = `u${name}`;
    cover([op(uname)], `${uname}: user loads read the traced process, not the kernel`, () => {
      const uopcode = D.DIF_OP_NAMES.indexOf(uname);
      const m = new DifMachine();
      m.mapUser(UADDR, bytes);
      m.mapKernel(KADDR, bytes);
      expect(run(loadDifo(uopcode, UADDR), {}, m)).toBe(want);
      expect(fault(() => run(loadDifo(uopcode, KADDR), {}, m)).message).toBe(`invalid address (0x${KADDR.toString(16)})`);
    });
  }
  const stores: [string, number, number][] = [
    ['stb', D.DIF_OP_STB, 1], ['sth', D.DIF_OP_STH, 2], ['stw', D.DIF_OP_STW, 4], ['stx', D.DIF_OP_STX, 8],
  ];
  for (const [name, opcode, size] of stores) {
    cover([op(name), op('allocs'), flt(D.DTRACEFLT_BADADDR)], `${name} stores to scratch; to the kernel it is a bad address`, () => {
      const m = new DifMachine();
      const d = build((b) => {
        b.setx(16n, 1);
        b.emit(encodeAllocs(1, 2));
        b.setx(0x1122334455667788n, 3);
        b.emit(encodeStore(opcode, 3, 2));
        b.emit(encodeLoad(D.DIF_OP_LDX, 2, 4));
        b.emit(encodeRet(4));
      });
      expect(run(d, {}, m)).toBe(0x1122334455667788n & ((1n << BigInt(8 * size)) - 1n));
      m.mapKernel(KADDR, new Uint8Array(16));
      const bad = build((b) => {
        b.setx(1n, 3);
        b.setx(KADDR, 2);
        b.emit(encodeStore(opcode, 3, 2));
        b.emit(encodeRet(0));
      });
      expect(fault(() => run(bad, {}, m)).message).toBe(`invalid address (0x${KADDR.toString(16)})`);
    });
  }
  cover([op('allocs'), flt(D.DTRACEFLT_NOSCRATCH)], 'allocs beyond the scratch space is out of scratch space', () => {
    const m = new DifMachine({ scratchSize: 64 });
    const d = build((b) => {
      b.setx(65n, 1);
      b.emit(encodeAllocs(1, 2));
      b.emit(encodeRet(2));
    });
    const f = fault(() => run(d, {}, m));
    expect(f.fault).toBe(D.DTRACEFLT_NOSCRATCH);
    expect(f.message).toBe('out of scratch space');
  });
  cover([op('copys')], 'copys copies bytes into scratch; into the string table it is a bad address', () => {
    const m = new DifMachine();
    const d = build((b) => {
      b.setx(8n, 1);
      b.emit(encodeAllocs(1, 2));
      b.sets('abcdefg', 3);
      b.emit(encodeCopys(3, 1, 2));
      b.emit(encodeRet(2));
    }, STR);
    expect(m.run(d).string).toBe('abcdefg');
    const bad = build((b) => {
      b.setx(4n, 1);
      b.sets('abcd', 2);
      b.sets('wxyz', 3);
      b.emit(encodeCopys(3, 1, 2));
      b.emit(encodeRet(2));
    });
    expect(fault(() => m.run(bad)).message).toMatch(/^invalid address \(0x[0-9a-f]+\)$/);
  });
});

describe('variables', () => {
  const X = D.DIF_VAR_OTHER_UBASE;
  cover([op('ldga')], 'ldga reads args[] of the probe', () => {
    const d = build((b) => {
      b.setx(2n, 1);
      b.emit(encodeLda(D.DIF_OP_LDGA, D.DIF_VAR_ARGS, 1, 2));
      b.emit(encodeRet(2));
    });
    expect(run(d, { args: [10n, 11n, 12n] })).toBe(12n);
  });
  cover([op('ldta'), flt(D.DTRACEFLT_ILLOP)], 'ldta: DTrace has no thread-local built-in arrays, an illegal operation', () => {
    const d = raw([encodeLda(D.DIF_OP_LDTA, 0, 0, 1), encodeRet(1)]);
    expect(fault(() => run(d)).message).toBe('illegal operation');
  });
  cover([op('ldgs'), op('stgs')], 'ldgs reads built-ins and global scalars; stgs writes them', () => {
    const m = new DifMachine();
    const store = build((b) => {
      b.setx(41n, 1);
      b.emit(encodeStv(D.DIF_OP_STGS, X, 1));
      b.emit(encodeLdv(D.DIF_OP_LDGS, D.DIF_VAR_PID, 2));
      b.emit(encodeRet(2));
    }, INT, [v('x', X, D.DIFV_SCOPE_GLOBAL, D.DIFV_KIND_SCALAR)]);
    expect(run(store, { pid: 1234n }, m)).toBe(1234n);
    const load = build((b) => {
      b.emit(encodeLdv(D.DIF_OP_LDGS, X, 1));
      b.emit(encodeRet(1));
    }, INT, [v('x', X, D.DIFV_SCOPE_GLOBAL, D.DIFV_KIND_SCALAR)]);
    expect(run(load, {}, m)).toBe(41n);
  });
  cover([op('ldts'), op('stts')], 'ldts/stts: each thread sees its own value', () => {
    const m = new DifMachine();
    const vars = [v('t', X, D.DIFV_SCOPE_THREAD, D.DIFV_KIND_SCALAR)];
    const store = build((b) => {
      b.emit(encodeLdv(D.DIF_OP_LDGS, D.DIF_VAR_TID, 1));
      b.emit(encodeStv(D.DIF_OP_STTS, X, 1));
      b.emit(encodeRet(1));
    }, INT, vars);
    const load = build((b) => {
      b.emit(encodeLdv(D.DIF_OP_LDTS, X, 1));
      b.emit(encodeRet(1));
    }, INT, vars);
    run(store, { tid: 100n }, m);
    run(store, { tid: 200n }, m);
    expect(run(load, { tid: 100n }, m)).toBe(100n);
    expect(run(load, { tid: 200n }, m)).toBe(200n);
    expect(run(load, { tid: 300n }, m)).toBe(0n);
  });
  cover([op('ldls'), op('stls')], 'ldls/stls: clause-locals last for one probe firing', () => {
    const m = new DifMachine();
    const vars = [v('this_x', X, D.DIFV_SCOPE_LOCAL, D.DIFV_KIND_SCALAR)];
    run(build((b) => { b.setx(9n, 1); b.emit(encodeStv(D.DIF_OP_STLS, X, 1)); b.emit(encodeRet(1)); }, INT, vars), {}, m);
    const load = build((b) => { b.emit(encodeLdv(D.DIF_OP_LDLS, X, 1)); b.emit(encodeRet(1)); }, INT, vars);
    expect(run(load, {}, m)).toBe(9n);
    m.newFiring();
    expect(run(load, {}, m)).toBe(0n);
  });
  for (const [ld, st, scope] of [['ldgaa', 'stgaa', D.DIFV_SCOPE_GLOBAL], ['ldtaa', 'sttaa', D.DIFV_SCOPE_THREAD]] as const) {
    cover([op(ld), op(st), op('pushtv'), op('pushtr'), op('flushts')], `${ld}/${st}: associative arrays with tuple keys`, () => {
      const m = new DifMachine();
      const ldOp = D.DIF_OP_NAMES.indexOf(ld), stOp = D.DIF_OP_NAMES.indexOf(st);
      const vars = [v('a', X, scope, D.DIFV_KIND_ARRAY)];
      const access = (key1: bigint, key2: string, value: bigint | null) => build((b) => {
        b.setx(key1, 1);
        b.emit(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, 1));
        b.sets(key2, 2);
        b.emit(encodePushts(D.DIF_OP_PUSHTR, D.DIF_TYPE_STRING, 0, 2));
        if (value === null) {
          b.emit(encodeLdv(ldOp, X, 3));
        } else {
          b.setx(value, 3);
          b.emit(encodeStv(stOp, X, 3));
        }
        b.emit(encodeFlushts());
        b.emit(encodeRet(3));
      }, INT, vars);
      run(access(1n, 'one', 11n), { tid: 1n }, m);
      run(access(2n, 'two', 22n), { tid: 1n }, m);
      expect(run(access(1n, 'one', null), { tid: 1n }, m)).toBe(11n);
      expect(run(access(2n, 'two', null), { tid: 1n }, m)).toBe(22n);
      expect(run(access(1n, 'two', null), { tid: 1n }, m)).toBe(0n);
      // Thread-local arrays are per thread; global ones are shared.
      expect(run(access(1n, 'one', null), { tid: 2n }, m)).toBe(scope === D.DIFV_SCOPE_GLOBAL ? 11n : 0n);
      // Storing 0 deletes the element.
      run(access(1n, 'one', 0n), { tid: 1n }, m);
      expect(run(access(1n, 'one', null), { tid: 1n }, m)).toBe(0n);
    });
  }
  cover([op('popts'), op('pushtv')], 'popts drops the last tuple entry', () => {
    const m = new DifMachine();
    const vars = [v('a', X, D.DIFV_SCOPE_GLOBAL, D.DIFV_KIND_ARRAY)];
    const d = (pushExtra: boolean, value: bigint | null) => build((b) => {
      b.setx(5n, 1);
      b.emit(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, 1));
      if (pushExtra) {
        b.emit(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, 1));
        b.emit(encodePopts());
      }
      if (value === null) b.emit(encodeLdv(D.DIF_OP_LDGAA, X, 3));
      else {
        b.setx(value, 3);
        b.emit(encodeStv(D.DIF_OP_STGAA, X, 3));
      }
      b.emit(encodeRet(3));
    }, INT, vars);
    run(d(true, 7n), {}, m);
    expect(run(d(false, null), {}, m)).toBe(7n);
  });
  cover([op('pushtv'), op('pushtr'), flt(D.DTRACEFLT_TUPOFLOW)], 'pushing more than DIF_DTR_STACK tuple entries is a tuple stack overflow', () => {
    for (const pushOp of [D.DIF_OP_PUSHTV, D.DIF_OP_PUSHTR]) {
      const d = build((b) => {
        b.sets('k', 1);
        for (let i = 0; i <= D.DIF_DTR_STACK; i++) {
          b.emit(encodePushts(pushOp, pushOp === D.DIF_OP_PUSHTR ? D.DIF_TYPE_STRING : D.DIF_TYPE_CTF, 0, 1));
        }
        b.emit(encodeRet(0));
      });
      const f = fault(() => run(d));
      expect(f.message).toBe('tuple stack overflow');
      expect(f.offset).toBe((1 + D.DIF_DTR_STACK) * 4);
    }
  });
  cover([op('stgs'), op('ldgs')], 'bad variables: a store to a built-in is refused at load, an unknown built-in is an illegal operation', () => {
    const store = raw([encodeStv(D.DIF_OP_STGS, D.DIF_VAR_PID, 0), encodeRet(0)]);
    expect(loadError(() => run(store)).message).toBe(`DIF object rejected: [0]: invalid variable ${D.DIF_VAR_PID}`);
    const low = raw([encodeLdv(D.DIF_OP_LDGS, 0x10, 1), encodeRet(1)]);
    expect(loadError(() => run(low)).message).toBe('DIF object rejected: [0]: invalid variable 16');
    const unknown = raw([encodeLdv(D.DIF_OP_LDGS, 0x4ff, 1), encodeRet(1)]);
    expect(fault(() => run(unknown)).message).toBe('illegal operation');
  });
  cover([op('call')], 'call runs a subroutine on the tuple stack; an unknown one is refused at load', () => {
    expect(callInt('strlen', ['four'])).toBe(4n);
    const bad = raw([encodeCall(D.DIF_SUBR_MAX + 1, 1), encodeRet(1)]);
    expect(loadError(() => run(bad)).message).toContain(`invalid subr ${D.DIF_SUBR_MAX + 1}`);
  });
  cover([op('xlate'), op('xlarg')], 'xlate and xlarg never reach the kernel: the DIF object is refused', () => {
    for (const x of [D.DIF_OP_XLATE, D.DIF_OP_XLARG]) {
      const e = loadError(() => run(raw([encodeXlate(x, 0, 1), encodeRet(1)])));
      expect(e.message).toContain(`invalid opcode ${x}`);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Chapter 10: subroutines

describe('subroutines', () => {
  cover([subr('rand')], 'rand', () => {
    const m = new DifMachine({ rand: () => 0x1234n });
    expect(callInt('rand', [], m)).toBe(0x1234n);
  });
  cover([subr('<array bound>'), flt(D.DTRACEFLT_BADINDEX)], 'a declared array index: kept inside, index out of bounds past it', () => {
    expect(callInt('<array bound>', [4n, 5n, 4n])).toBe(4n);
    expect(callFault('<array bound>', [5n, 5n, 4n])).toBe('index out of bounds (5)');
    // -1 of an int array: the byte offset over the element size, as DTrace for Linux shows it.
    expect(callFault('<array bound>', [U(-1n), 5n, 4n])).toBe('index out of bounds (4611686018427387903)');
  });
  cover([subr('strlen'), flt(D.DTRACEFLT_BADADDR)], 'strlen; of NULL it is a bad address', () => {
    expect(callInt('strlen', [''])).toBe(0n);
    expect(callInt('strlen', ['hello'])).toBe(5n);
    expect(callFault('strlen', [0n])).toBe('invalid address (0x0)');
  });
  cover([subr('strjoin'), subr('substr'), subr('index'), subr('rindex')], 'the acceptance example: foobar 6 oba 3 2', () => {
    expect(callStr('strjoin', ['foo', 'bar'])).toBe('foobar');
    expect(callStr('substr', ['foobar', 2n, 3n])).toBe('oba');
    expect(callInt('index', ['foobar', 'ba'])).toBe(3n);
    expect(callInt('rindex', ['foobar', 'o'])).toBe(2n);
  });
  cover([subr('strjoin'), flt(D.DTRACEFLT_NOSCRATCH)], 'strjoin beyond strsize is out of scratch space', () => {
    expect(callFault('strjoin', ['abcdefgh', 'ijklmnop'], new DifMachine({ strsize: 16 }))).toBe('out of scratch space');
    expect(callFault('strjoin', ['a', 'b'], new DifMachine({ scratchSize: 8 }))).toBe('out of scratch space');
  });
  cover([subr('substr')], 'substr with negative and missing positions', () => {
    expect(callStr('substr', ['hello', 1n])).toBe('ello');
    expect(callStr('substr', ['hello', U(-3n)])).toBe('llo');
    expect(callStr('substr', ['hello', 1n, U(-1n)])).toBe('ell');
    expect(callStr('substr', ['hello', 9n])).toBe('');
  });
  cover([subr('index'), subr('rindex'), subr('strstr')], 'index, rindex and strstr', () => {
    expect(callInt('index', ['hello', 'l'])).toBe(2n);
    expect(callInt('index', ['hello', 'l', 3n])).toBe(3n);
    expect(callInt('index', ['hello', 'z'])).toBe(U(-1n));
    expect(callInt('rindex', ['hello', 'l'])).toBe(3n);
    expect(callInt('rindex', ['hello', 'z'])).toBe(U(-1n));
    expect(callStr('strstr', ['hello', 'll'])).toBe('llo');
    expect(callStr('strstr', ['hello', 'xx'])).toBe(null);
  });
  cover([subr('strchr'), subr('strrchr')], 'strchr and strrchr', () => {
    expect(callStr('strchr', ['a/b/c', 0x2fn])).toBe('/b/c');
    expect(callStr('strrchr', ['a/b/c', 0x2fn])).toBe('/c');
    expect(callStr('strchr', ['abc', 0x7an])).toBe(null);
  });
  cover([subr('strtok')], 'strtok keeps its place between calls', () => {
    const m = new DifMachine();
    const d = build((b) => {
      b.sets('a,b,,c', 1);
      b.emit(encodePushts(D.DIF_OP_PUSHTR, D.DIF_TYPE_STRING, 0, 1));
      b.sets(',', 2);
      b.emit(encodePushts(D.DIF_OP_PUSHTR, D.DIF_TYPE_STRING, 0, 2));
      b.emit(encodeCall(D.DIF_SUBR_STRTOK, 3));
      b.emit(encodeFlushts());
      // strtok(NULL, ",") twice more: the second token, then the third.
      for (let i = 0; i < 2; i++) {
        b.emit(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, 0));
        b.emit(encodePushts(D.DIF_OP_PUSHTR, D.DIF_TYPE_STRING, 0, 2));
        b.emit(encodeCall(D.DIF_SUBR_STRTOK, i === 0 ? 4 : 5));
        b.emit(encodeFlushts());
      }
      b.emit(encodeRet(5));
    }, STR);
    expect(m.run(d).string).toBe('c');
  });
  cover([subr('toupper'), subr('tolower')], 'toupper and tolower', () => {
    expect(callStr('toupper', ['Hello, World 1'])).toBe('HELLO, WORLD 1');
    expect(callStr('tolower', ['Hello, World 1'])).toBe('hello, world 1');
  });
  cover([subr('basename'), subr('dirname')], 'basename and dirname', () => {
    expect(callStr('basename', ['/usr/lib/libc.so'])).toBe('libc.so');
    expect(callStr('dirname', ['/usr/lib/libc.so'])).toBe('/usr/lib');
    expect(callStr('basename', ['/'])).toBe('/');
    expect(callStr('dirname', ['file'])).toBe('.');
  });
  cover([subr('cleanpath')], 'cleanpath', () => {
    expect(callStr('cleanpath', ['/a//b/./c/../d'])).toBe('/a/b/d');
  });
  cover([subr('lltostr'), flt(D.DTRACEFLT_ILLOP)], 'lltostr in bases; a bad base is an illegal operation', () => {
    expect(callStr('lltostr', [U(-42n)])).toBe('-42');
    expect(callStr('lltostr', [255n, 16n])).toBe('0xff');
    expect(callStr('lltostr', [8n, 8n])).toBe('010');
    expect(callStr('lltostr', [5n, 2n])).toBe('101');
    expect(callFault('lltostr', [5n, 1n])).toBe('illegal operation');
  });
  cover([subr('strtoll')], 'strtoll', () => {
    expect(callInt('strtoll', ['  -123abc'])).toBe(U(-123n));
    expect(callInt('strtoll', ['0x1F', 16n])).toBe(31n);
    expect(callInt('strtoll', ['777', 8n])).toBe(511n);
  });
  cover(['htons', 'htonl', 'htonll', 'ntohs', 'ntohl', 'ntohll'].map(subr), 'byte order on little-endian x86', () => {
    expect(callInt('htons', [0x1234n])).toBe(0x3412n);
    expect(callInt('ntohs', [0x3412n])).toBe(0x1234n);
    expect(callInt('htonl', [0x12345678n])).toBe(0x78563412n);
    expect(callInt('ntohl', [0x78563412n])).toBe(0x12345678n);
    expect(callInt('htonll', [0x0102030405060708n])).toBe(0x0807060504030201n);
    expect(callInt('ntohll', [0x0807060504030201n])).toBe(0x0102030405060708n);
  });
  cover([subr('inet_ntoa'), subr('inet_ntoa6'), subr('inet_ntop')], 'inet_ntoa, inet_ntoa6, inet_ntop', () => {
    const m = new DifMachine();
    m.mapKernel(KADDR, Uint8Array.from([192, 168, 1, 2]));
    const v6 = new Uint8Array(16);
    v6[0] = 0xfe; v6[1] = 0x80; v6[15] = 1;
    m.mapKernel(KADDR + 0x100n, v6);
    expect(callStr('inet_ntoa', [KADDR], m)).toBe('192.168.1.2');
    expect(callStr('inet_ntoa6', [KADDR + 0x100n], m)).toBe('fe80::1');
    expect(callStr('inet_ntop', [BigInt(AF_INET), KADDR], m)).toBe('192.168.1.2');
    expect(callStr('inet_ntop', [BigInt(AF_INET6), KADDR + 0x100n], m)).toBe('fe80::1');
    expect(callFault('inet_ntop', [99n, KADDR], m)).toBe('illegal operation');
  });
  cover([subr('json')], 'json selects a member by a dotted path with [index]; NULL when absent', () => {
    const doc = '{"a":{"b":[1,"two",{"c":true}]},"s":"x\\"y"}';
    expect(callStr('json', [doc, 'a.b[0]'])).toBe('1');
    expect(callStr('json', [doc, 'a.b[1]'])).toBe('two');
    expect(callStr('json', [doc, 'a.b[2].c'])).toBe('true');
    expect(callStr('json', [doc, 'a.nosuch'])).toBe(null);
    expect(callStr('json', ['{"a":', 'a'])).toBe(null);
  });
  cover([subr('alloca'), flt(D.DTRACEFLT_NOSCRATCH)], 'alloca gives scratch; too much is out of scratch space', () => {
    const m = new DifMachine({ scratchSize: 128 });
    const a = callInt('alloca', [16n], m);
    expect(m.canStore(a, 16n)).toBe(true);
    expect(callFault('alloca', [1024n], m)).toBe('out of scratch space');
  });
  cover([subr('bcopy'), flt(D.DTRACEFLT_BADADDR)], 'bcopy copies into scratch; elsewhere it is a bad address', () => {
    const m = new DifMachine();
    m.mapKernel(KADDR, 'xyz');
    const d = build((b) => {
      b.setx(8n, 1);
      b.emit(encodeAllocs(1, 2));
      b.setx(KADDR, 3);
      b.emit(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, 3));
      b.emit(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, 2));
      b.setx(4n, 4);
      b.emit(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, 4));
      b.emit(encodeCall(D.DIF_SUBR_BCOPY, 5));
      b.emit(encodeRet(2));
    }, STR);
    expect(m.run(d).string).toBe('xyz');
    expect(callFault('bcopy', [KADDR, KADDR, 4n], m)).toBe(`invalid address (0x${KADDR.toString(16)})`);
  });
  cover([subr('memstr')], 'memstr joins NUL-separated words with its character', () => {
    const m = new DifMachine();
    m.mapKernel(KADDR, Uint8Array.from(Buffer.from('ls\0-l\0/tmp\0', 'latin1')));
    expect(callStr('memstr', [KADDR, 0x20n, 11n], m)).toBe('ls -l /tmp');
    expect(callStr('memstr', [KADDR, 0x20n, 10n], m)).toBe('ls -l /tm');
    expect(callStr('memstr', [KADDR, 0x2cn, 6n], m)).toBe('ls,-l');
    expect(callInt('memstr', [KADDR, 0x20n, 0n], m)).toBe(0n);
    expect(callFault('memstr', [0x1000n, 0x20n, 4n], m)).toBe('invalid address (0x1000)');
  });
  cover([subr('copyin'), subr('copyinstr'), subr('copyinto'), flt(D.DTRACEFLT_BADADDR)], 'copyin, copyinstr and copyinto read the traced process', () => {
    const m = new DifMachine();
    m.mapUser(UADDR, 'user string');
    const p = callInt('copyin', [UADDR, 4n], m);
    expect(m.run(callDifo('copyin', [UADDR, 4n], INT)).value).toBe(p);
    expect(callStr('copyinstr', [UADDR], m)).toBe('user string');
    expect(callStr('copyinstr', [UADDR, 4n], m)).toBe('user');
    expect(callFault('copyin', [0x1000n, 4n], m)).toBe('invalid address (0x1000)');
    expect(callFault('copyinstr', [0x1000n], m)).toBe('invalid address (0x1000)');
    const into = build((b) => {
      b.setx(8n, 1);
      b.emit(encodeAllocs(1, 2));
      for (const [val, reg] of [[UADDR, 3], [5n, 4]] as const) {
        b.setx(val, reg);
        b.emit(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, reg));
      }
      b.emit(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, 2));
      b.emit(encodeCall(D.DIF_SUBR_COPYINTO, 5));
      b.emit(encodeRet(2));
    }, STR);
    expect(m.run(into).string).toBe('user ');
    expect(callFault('copyinto', [UADDR, 4n, KADDR], m)).toBe(`invalid address (0x${KADDR.toString(16)})`);
  });
  cover([subr('speculation')], 'speculation hands out ids 1..nspec, then 0 until one is freed', () => {
    const m = new DifMachine({ nspec: 2 });
    expect(callInt('speculation', [], m)).toBe(1n);
    expect(callInt('speculation', [], m)).toBe(2n);
    expect(callInt('speculation', [], m)).toBe(0n);
    m.releaseSpeculation(1n);
    expect(callInt('speculation', [], m)).toBe(1n);
  });
  cover([subr('progenyof')], 'progenyof', () => {
    const ctx = { pid: 30n, ancestors: [20n, 1n] };
    expect(callInt('progenyof', [30n], new DifMachine(), ctx)).toBe(1n);
    expect(callInt('progenyof', [1n], new DifMachine(), ctx)).toBe(1n);
    expect(callInt('progenyof', [25n], new DifMachine(), ctx)).toBe(0n);
  });
});

/**
 * Subroutines the reference machine does not model: they need kernel state (locks, speculation
 * buffers, STREAMS messages, devices, files, the process's memory for writing) or are not in this
 * DTrace's language. Calling one must say so, not compute something wrong.
 */
const NOT_ON_MACHINE = new Set([
  'mutex_owned', 'mutex_owner', 'mutex_type_adaptive', 'mutex_type_spin', 'rw_read_held', 'rw_write_held',
  'rw_iswriter', 'copyout', 'copyoutstr', 'msgdsize', 'msgsize', 'getmajor', 'getminor',
  'ddi_pathname', 'getf', 'd_path', 'link_ntop', 'memref', 'sx_shared_held',
  'sx_exclusive_held', 'sx_isexclusive',
]);

describe('coverage', () => {
  test('every DIF instruction of chapter 8 has a test', () => {
    const ops = D.DIF_OP_NAMES.filter((n) => n !== '');
    expect(ops.length).toBe(D.DIF_OP_MAX);
    expect(ops.filter((n) => !covered.has(op(n)))).toEqual([]);
  });
  test('every subroutine the machine implements has a test', () => {
    expect(MACHINE_SUBROUTINES.filter((n) => !covered.has(subr(n)))).toEqual([]);
  });
  test('every subroutine of chapter 10 is either tested on the machine or listed as not modelled', () => {
    const untested = SUBROUTINES.map((s) => s.name).filter((n) => !covered.has(subr(n)) && !NOT_ON_MACHINE.has(n));
    expect(untested).toEqual([]);
    // A subroutine that gains an implementation must leave the list (and get a test).
    expect(MACHINE_SUBROUTINES.filter((n) => NOT_ON_MACHINE.has(n))).toEqual([]);
  });
  test.each([...NOT_ON_MACHINE])('%s is refused by name, not computed', (name) => {
    expect(() => callInt(name, [0n])).toThrow(`does not implement subroutine ${name}`);
  });
  test('every failure mode DTrace reports from DIF has a test', () => {
    const faults = [D.DTRACEFLT_BADADDR, D.DTRACEFLT_BADALIGN, D.DTRACEFLT_ILLOP, D.DTRACEFLT_DIVZERO,
      D.DTRACEFLT_NOSCRATCH, D.DTRACEFLT_KPRIV, D.DTRACEFLT_TUPOFLOW, D.DTRACEFLT_BADINDEX];
    expect(faults.map(flt).filter((f) => !covered.has(f))).toEqual([]);
  });
});
