// The reference DIF machine: every instruction, every implemented subroutine and their failure
// modes, then DIF from the real code generator.
import { describe, expect, test } from 'vitest';
import * as D from '../../src/dif/constants.js';
import {
  DifBuilder, encodeAllocs, encodeCall, encodeCmp, encodeCopys, encodeFlushts, encodeLda, encodeLdv,
  encodeLoad, encodeMov, encodeNop, encodeNot, encodePopts, encodePushts, encodeR, encodeRet, encodeStore,
  encodeStv, encodeTst, encodeXlate, encodeBranch,
} from '../../src/dif/builder.js';
import { DifFault, DifLoadError, DifMachine, type ProbeContext } from '../../src/dif/machine.js';
import { validateDifo } from '../../src/dif/validate.js';
import { AF_INET, AF_INET6, ipv6, jsonSelect } from '../../src/dif/machine-subr.js';
import type { DifType, DifVar, Difo } from '../../src/dif/difo.js';
import { compile } from '../../src/compiler/compile.js';
import { ProbeRegistry } from '../../src/providers/registry.js';

const INT: DifType = { kind: D.DIF_TYPE_CTF, ckind: D.CTF_K_INTEGER, flags: 0, size: 8 };
const STR: DifType = { kind: D.DIF_TYPE_STRING, ckind: 0, flags: D.DIF_TF_BYREF, size: 256 };
const U = (v: bigint): bigint => BigInt.asUintN(64, v);

function build(body: (b: DifBuilder) => void, rtype: DifType = INT): Difo {
  const b = new DifBuilder();
  body(b);
  return b.finish(rtype);
}

/** A DIF object from raw instructions (for what the builder refuses to assemble). */
function raw(insns: number[], extra: Partial<Difo> = {}): Difo {
  return { insns: Uint32Array.from(insns), strtab: Buffer.alloc(0), inttab: [], vartab: [], rtype: INT, ...extra };
}

/** rd = a OP b. */
function binop(op: number, a: bigint, b: bigint): Difo {
  return build((d) => {
    d.setx(a, 1);
    d.setx(b, 2);
    d.emit(encodeR(op, 1, 2, 3));
    d.emit(encodeRet(3));
  });
}

function fault(f: () => unknown): DifFault {
  try {
    f();
  } catch (e) {
    if (e instanceof DifFault) return e;
    throw e;
  }
  throw new Error('no fault');
}

function variable(name: string, id: number, scope: number, kind: number, type: DifType = INT): DifVar {
  return { name, id, kind, scope, flags: 0, type };
}

describe('arithmetic and logic', () => {
  const cases: [string, number, bigint, bigint, bigint][] = [
    ['or', D.DIF_OP_OR, 0b1100n, 0b1010n, 0b1110n],
    ['xor', D.DIF_OP_XOR, 0b1100n, 0b1010n, 0b0110n],
    ['and', D.DIF_OP_AND, 0b1100n, 0b1010n, 0b1000n],
    ['sll', D.DIF_OP_SLL, 7n, 3n, 56n],
    ['sll wraps at 64 bits', D.DIF_OP_SLL, 1n, 63n, 1n << 63n],
    ['srl is logical', D.DIF_OP_SRL, U(-16n), 2n, U(-16n) >> 2n],
    ['sra is arithmetic', D.DIF_OP_SRA, U(-16n), 2n, U(-4n)],
    ['sub', D.DIF_OP_SUB, 5n, 7n, U(-2n)],
    ['add wraps', D.DIF_OP_ADD, U(-1n), 2n, 1n],
    ['mul', D.DIF_OP_MUL, U(-3n), 7n, U(-21n)],
    ['sdiv truncates toward zero', D.DIF_OP_SDIV, U(-7n), 2n, U(-3n)],
    ['sdiv of negatives', D.DIF_OP_SDIV, U(-7n), U(-2n), 3n],
    ['udiv', D.DIF_OP_UDIV, U(-7n), 2n, U(-7n) / 2n],
    ['srem takes the dividend sign', D.DIF_OP_SREM, U(-7n), 2n, U(-1n)],
    ['srem by a negative', D.DIF_OP_SREM, 7n, U(-2n), 1n],
    ['urem', D.DIF_OP_UREM, U(-7n), 10n, U(-7n) % 10n],
  ];
  test.each(cases)('%s', (_name, op, a, b, want) => {
    expect(new DifMachine().run(binop(op, a, b), {}).value).toBe(want);
  });

  test('not and mov', () => {
    const m = new DifMachine();
    expect(m.run(build((d) => { d.setx(5n, 1); d.emit(encodeNot(1, 2)); d.emit(encodeRet(2)); })).signed).toBe(-6n);
    expect(m.run(build((d) => { d.setx(42n, 1); d.emit(encodeMov(1, 7)); d.emit(encodeRet(7)); })).value).toBe(42n);
  });

  test('%r0 always reads 0', () => {
    const m = new DifMachine();
    expect(m.run(build((d) => { d.setx(9n, 1); d.emit(encodeR(D.DIF_OP_ADD, 0, 1, 2)); d.emit(encodeRet(2)); })).value).toBe(9n);
    expect(m.run(build((d) => d.emit(encodeRet(0)))).value).toBe(0n);
  });

  test.each([
    ['sdiv', D.DIF_OP_SDIV], ['udiv', D.DIF_OP_UDIV], ['srem', D.DIF_OP_SREM], ['urem', D.DIF_OP_UREM],
  ])('%s by zero faults with divide-by-zero at its DIF offset', (_n, op) => {
    const f = fault(() => new DifMachine().run(binop(op, 1n, 0n)));
    expect(f.fault).toBe(D.DTRACEFLT_DIVZERO);
    expect(f.offset).toBe(8); // the third instruction
    expect(f.message).toBe('divide-by-zero');
  });
});

describe('comparisons and branches', () => {
  /** 1 when `op` branches after cmp a, b (or tst a when b is undefined), else 0. */
  function branches(op: number, a: bigint, b?: bigint, cmp = D.DIF_OP_CMP): bigint {
    return new DifMachine().run(build((d) => {
      const taken = d.newLabel();
      d.setx(a, 1);
      if (b === undefined) d.emit(encodeTst(1));
      else {
        d.setx(b, 2);
        d.emit(encodeCmp(cmp, 1, 2));
      }
      d.branch(op, taken);
      d.setx(0n, 3);
      d.emit(encodeRet(3));
      d.placeLabel(taken);
      d.setx(1n, 3);
      d.emit(encodeRet(3));
    })).value;
  }
  const m1 = U(-1n);
  const cases: [string, number, bigint, bigint, bigint][] = [
    ['be equal', D.DIF_OP_BE, 3n, 3n, 1n], ['be unequal', D.DIF_OP_BE, 3n, 4n, 0n],
    ['bne unequal', D.DIF_OP_BNE, 3n, 4n, 1n], ['bne equal', D.DIF_OP_BNE, 3n, 3n, 0n],
    ['bg 4 > 3', D.DIF_OP_BG, 4n, 3n, 1n], ['bg 3 > 3', D.DIF_OP_BG, 3n, 3n, 0n], ['bg 1 > -1', D.DIF_OP_BG, 1n, m1, 1n],
    ['bgu 1 > 0xff..ff', D.DIF_OP_BGU, 1n, m1, 0n], ['bgu 0xff..ff > 1', D.DIF_OP_BGU, m1, 1n, 1n], ['bgu equal', D.DIF_OP_BGU, 2n, 2n, 0n],
    ['bge equal', D.DIF_OP_BGE, 3n, 3n, 1n], ['bge -1 >= 1', D.DIF_OP_BGE, m1, 1n, 0n],
    ['bgeu equal', D.DIF_OP_BGEU, 3n, 3n, 1n], ['bgeu 1 >= 0xff..ff', D.DIF_OP_BGEU, 1n, m1, 0n],
    ['bl -1 < 1', D.DIF_OP_BL, m1, 1n, 1n], ['bl equal', D.DIF_OP_BL, 3n, 3n, 0n],
    ['blu -1 < 1 unsigned', D.DIF_OP_BLU, m1, 1n, 0n], ['blu 1 < 2', D.DIF_OP_BLU, 1n, 2n, 1n],
    ['ble equal', D.DIF_OP_BLE, 3n, 3n, 1n], ['ble 4 <= 3', D.DIF_OP_BLE, 4n, 3n, 0n], ['ble -5 <= 3', D.DIF_OP_BLE, U(-5n), 3n, 1n],
    ['bleu equal', D.DIF_OP_BLEU, 3n, 3n, 1n], ['bleu 0xff..ff <= 3', D.DIF_OP_BLEU, m1, 3n, 0n],
    // cc_n is the sign of the wrapped difference and cc_v is always clear, as in dtrace_dif_emulate:
    // INT64_MIN - 1 wraps to INT64_MAX, so the signed "less than" is not taken.
    ['bl on a wrapping difference', D.DIF_OP_BL, 1n << 63n, 1n, 0n],
  ];
  test.each(cases)('cmp + %s', (_n, op, a, b, want) => expect(branches(op, a, b)).toBe(want));

  test('tst sets only cc_z', () => {
    expect(branches(D.DIF_OP_BE, 0n)).toBe(1n);
    expect(branches(D.DIF_OP_BNE, 5n)).toBe(1n);
    expect(branches(D.DIF_OP_BL, m1)).toBe(0n); // cc_n is cleared by tst
    expect(branches(D.DIF_OP_BLU, 5n)).toBe(0n);
    expect(branches(D.DIF_OP_BLE, 0n)).toBe(1n);
  });

  test('ba always branches; nop does nothing', () => {
    expect(new DifMachine().run(build((d) => {
      const l = d.newLabel();
      d.setx(1n, 1);
      d.emit(encodeNop());
      d.branch(D.DIF_OP_BA, l);
      d.setx(2n, 1);
      d.placeLabel(l);
      d.emit(encodeRet(1));
    })).value).toBe(1n);
  });

  test('ret stops at once', () => {
    expect(new DifMachine().run(build((d) => {
      d.setx(1n, 1);
      d.emit(encodeRet(1));
      d.setx(2n, 1);
      d.emit(encodeRet(1));
    })).value).toBe(1n);
  });

  test('scmp compares strings by value, as unsigned bytes', () => {
    const scmp = (a: string, b: string, op: number): bigint => new DifMachine().run(build((d) => {
      const taken = d.newLabel();
      d.sets(a, 1);
      d.sets(b, 2);
      d.emit(encodeCmp(D.DIF_OP_SCMP, 1, 2));
      d.branch(op, taken);
      d.emit(encodeRet(0));
      d.placeLabel(taken);
      d.setx(1n, 3);
      d.emit(encodeRet(3));
    })).value;
    expect(scmp('abc', 'abc', D.DIF_OP_BE)).toBe(1n);
    expect(scmp('abc', 'abd', D.DIF_OP_BL)).toBe(1n);
    expect(scmp('abd', 'abc', D.DIF_OP_BG)).toBe(1n);
    expect(scmp('ab', 'abc', D.DIF_OP_BL)).toBe(1n);
    expect(scmp('\u00e9', 'z', D.DIF_OP_BG)).toBe(1n); // 0xc3 > 'z'
    // Two copies of the same text at different addresses are equal.
    const m = new DifMachine();
    m.mapKernel(0x1000n, 'abc');
    expect(m.run(build((d) => {
      const eq = d.newLabel();
      d.setx(0x1000n, 1);
      d.sets('abc', 2);
      d.emit(encodeCmp(D.DIF_OP_SCMP, 1, 2));
      d.branch(D.DIF_OP_BE, eq);
      d.emit(encodeRet(0));
      d.placeLabel(eq);
      d.setx(1n, 3);
      d.emit(encodeRet(3));
    })).value).toBe(1n);
  });

  test('scmp of an unmapped string faults with its address', () => {
    const f = fault(() => new DifMachine().run(build((d) => {
      d.setx(0x10n, 1);
      d.sets('x', 2);
      d.emit(encodeCmp(D.DIF_OP_SCMP, 1, 2));
      d.emit(encodeRet(0));
    })));
    expect(f.message).toBe('invalid address (0x10)');
    expect(f.offset).toBe(8);
  });
});

describe('constants', () => {
  test('setx loads the integer table', () => {
    expect(new DifMachine().run(build((d) => { d.setx(0x1234_5678_9abc_def0n, 4); d.emit(encodeRet(4)); })).value)
      .toBe(0x1234_5678_9abc_def0n);
  });
  test('sets yields the address of a string in the string table', () => {
    const m = new DifMachine();
    const r = m.run(build((d) => { d.sets('hello', 1); d.sets('world', 2); d.emit(encodeRet(2)); }, STR));
    expect(r.string).toBe('world');
    expect(m.readString(r.value - 6n)).toBe('hello');
    // Loads work on it.
    const c = m.run(build((d) => { d.sets('A', 1); d.emit(encodeLoad(D.DIF_OP_LDUB, 1, 2)); d.emit(encodeRet(2)); }));
    expect(c.value).toBe(65n);
  });
});

describe('loads and stores', () => {
  const K = 0x1000n, UA = 0x7000_0000n;
  function machine(opts = {}): DifMachine {
    const m = new DifMachine(opts);
    m.mapKernel(K, Uint8Array.from([0x80, 0xff, 0xfe, 0xff, 0xff, 0xff, 0xff, 0x7f, 1, 2]));
    m.mapUser(UA, Uint8Array.from([0xff, 0x80, 0x00, 0x80, 0x01, 0, 0, 0x80]));
    return m;
  }
  const load = (m: DifMachine, op: number, addr: bigint) =>
    m.run(build((d) => { d.setx(addr, 1); d.emit(encodeLoad(op, 1, 2)); d.emit(encodeRet(2)); }));

  const kernel: [string, number, bigint, bigint][] = [
    ['ldsb', D.DIF_OP_LDSB, K, -128n], ['ldub', D.DIF_OP_LDUB, K, 0x80n],
    ['ldsh', D.DIF_OP_LDSH, K, BigInt.asIntN(16, 0xff80n)], ['lduh', D.DIF_OP_LDUH, K, 0xff80n],
    ['ldsw', D.DIF_OP_LDSW, K, BigInt.asIntN(32, 0xfffeff80n)], ['lduw', D.DIF_OP_LDUW, K, 0xfffeff80n],
    ['ldx', D.DIF_OP_LDX, K, 0x7fffffff_fffeff80n],
    ['rldsb', D.DIF_OP_RLDSB, K, -128n], ['rldub', D.DIF_OP_RLDUB, K, 0x80n],
    ['rldsh', D.DIF_OP_RLDSH, K, BigInt.asIntN(16, 0xff80n)], ['rlduh', D.DIF_OP_RLDUH, K, 0xff80n],
    ['rldsw', D.DIF_OP_RLDSW, K, BigInt.asIntN(32, 0xfffeff80n)], ['rlduw', D.DIF_OP_RLDUW, K, 0xfffeff80n],
    ['rldx', D.DIF_OP_RLDX, K, 0x7fffffff_fffeff80n],
    ['uldsb', D.DIF_OP_ULDSB, UA, -1n], ['uldub', D.DIF_OP_ULDUB, UA, 0xffn],
    ['uldsh', D.DIF_OP_ULDSH, UA, BigInt.asIntN(16, 0x80ffn)], ['ulduh', D.DIF_OP_ULDUH, UA, 0x80ffn],
    ['uldsw', D.DIF_OP_ULDSW, UA, BigInt.asIntN(32, 0x800080ffn)], ['ulduw', D.DIF_OP_ULDUW, UA, 0x800080ffn],
    ['uldx', D.DIF_OP_ULDX, UA, 0x80000001_800080ffn],
  ];
  test.each(kernel)('%s', (_n, op, addr, want) => {
    expect(load(machine(), op, addr).signed).toBe(BigInt.asIntN(64, want));
  });

  test.each(kernel.filter(([n]) => !n.startsWith('u')))('%s of an unmapped address: invalid address', (_n, op) => {
    const f = fault(() => load(machine(), op, 0n));
    expect(f.fault).toBe(D.DTRACEFLT_BADADDR);
    expect(f.illval).toBe(0n);
    expect(f.offset).toBe(4);
    expect(f.message).toBe('invalid address (0x0)');
  });

  test.each(kernel.filter(([n]) => !n.endsWith('b') && !n.startsWith('u')))('%s misaligned: invalid alignment', (_n, op) => {
    const f = fault(() => load(machine(), op, K + 1n));
    expect(f.fault).toBe(D.DTRACEFLT_BADALIGN);
    expect(f.message).toBe(`invalid alignment (0x${(K + 1n).toString(16)})`);
  });

  test('kernel loads do not read user memory, user loads do not read kernel memory', () => {
    expect(fault(() => load(machine(), D.DIF_OP_LDUB, UA)).fault).toBe(D.DTRACEFLT_BADADDR);
    expect(fault(() => load(machine(), D.DIF_OP_ULDUB, K)).message).toBe('invalid address (0x1000)');
    // User loads need no alignment.
    expect(load(machine(), D.DIF_OP_ULDUH, UA + 1n).value).toBe(0x0080n);
  });

  test('without kernel access, rld* of kernel memory is an invalid kernel access; ld* is not checked', () => {
    const m = machine({ kernelAccess: false });
    const f = fault(() => load(m, D.DIF_OP_RLDUB, K));
    expect(f.fault).toBe(D.DTRACEFLT_KPRIV);
    expect(f.message).toBe('invalid kernel access');
    expect(load(m, D.DIF_OP_LDUB, K).value).toBe(0x80n);
    // DTrace's own memory stays readable.
    expect(m.run(build((d) => { d.sets('Z', 1); d.emit(encodeLoad(D.DIF_OP_RLDUB, 1, 2)); d.emit(encodeRet(2)); })).value).toBe(90n);
  });

  const stores: [string, number, number][] = [
    ['stb', D.DIF_OP_STB, 1], ['sth', D.DIF_OP_STH, 2], ['stw', D.DIF_OP_STW, 4], ['stx', D.DIF_OP_STX, 8],
  ];
  test.each(stores)('%s stores into scratch', (_n, op, width) => {
    const r = new DifMachine().run(build((d) => {
      d.setx(16n, 1);
      d.emit(encodeAllocs(1, 2)); // %r2 = 16 bytes of scratch
      d.setx(0x1122334455667788n, 3);
      d.emit(encodeStore(op, 3, 2));
      d.emit(encodeLoad(D.DIF_OP_LDX, 2, 4));
      d.emit(encodeRet(4));
    }));
    expect(r.value).toBe(0x1122334455667788n & ((1n << BigInt(8 * width)) - 1n));
  });

  test.each(stores)('%s into kernel memory: invalid address', (_n, op) => {
    const f = fault(() => machine().run(build((d) => {
      d.setx(K, 1);
      d.emit(encodeStore(op, 1, 1));
      d.emit(encodeRet(0));
    })));
    expect(f.message).toBe('invalid address (0x1000)');
    expect(f.offset).toBe(4);
  });

  test.each(stores.slice(1))('%s misaligned: invalid alignment', (_n, op) => {
    const f = fault(() => new DifMachine().run(build((d) => {
      d.setx(16n, 1);
      d.emit(encodeAllocs(1, 2));
      d.setx(1n, 3);
      d.emit(encodeR(D.DIF_OP_ADD, 2, 3, 2));
      d.emit(encodeStore(op, 3, 2));
      d.emit(encodeRet(0));
    })));
    expect(f.fault).toBe(D.DTRACEFLT_BADALIGN);
    expect(f.offset).toBe(16);
  });
});

describe('scratch: allocs and copys', () => {
  test('allocs returns zeroed, 8-byte aligned scratch', () => {
    const m = new DifMachine();
    const r = m.run(build((d) => {
      d.setx(3n, 1);
      d.emit(encodeAllocs(1, 2));
      d.emit(encodeAllocs(1, 3));
      d.emit(encodeR(D.DIF_OP_SUB, 3, 2, 4));
      d.emit(encodeRet(4));
    }));
    expect(r.value).toBe(8n);
    expect(r.scratchUsed).toBe(11);
  });

  test('allocs beyond the scratch space: out of scratch space', () => {
    const f = fault(() => new DifMachine({ scratchSize: 64 }).run(build((d) => {
      d.setx(65n, 1);
      d.emit(encodeAllocs(1, 2));
      d.emit(encodeRet(2));
    })));
    expect(f.fault).toBe(D.DTRACEFLT_NOSCRATCH);
    expect(f.message).toBe('out of scratch space');
    expect(f.offset).toBe(4);
    // A huge request does not wrap around.
    expect(fault(() => new DifMachine().run(build((d) => {
      d.setx(U(-1n), 1);
      d.emit(encodeAllocs(1, 2));
      d.emit(encodeRet(2));
    }))).fault).toBe(D.DTRACEFLT_NOSCRATCH);
  });

  test('copys copies r2 bytes from r1 to rd', () => {
    const r = new DifMachine().run(build((d) => {
      d.setx(8n, 1);
      d.emit(encodeAllocs(1, 3));
      d.sets('copied!', 2);
      d.emit(encodeCopys(2, 1, 3));
      d.emit(encodeRet(3));
    }, STR));
    expect(r.string).toBe('copied!');
  });

  test('copys to memory DTrace cannot store to: invalid address', () => {
    const f = fault(() => new DifMachine().run(build((d) => {
      d.setx(8n, 1);
      d.sets('x', 2);
      d.emit(encodeCopys(2, 1, 2)); // into the string table
      d.emit(encodeRet(0));
    })));
    expect(f.fault).toBe(D.DTRACEFLT_BADADDR);
    expect(f.offset).toBe(8);
  });
});

describe('variables', () => {
  const G = D.DIF_VAR_OTHER_UBASE;

  test('built-in scalars come from the probe context', () => {
    const m = new DifMachine();
    const ctx: ProbeContext = {
      pid: 42n, tid: 43n, ppid: 1n, uid: 1000n, gid: 100n, timestamp: 123456789n, id: 1n, epid: 5n,
      execname: 'node', probeprov: 'dtrace', probemod: '', probefunc: '', probename: 'BEGIN',
      args: [10n, U(-1n)], errno: 2n, curcpu: 1n,
    };
    const get = (id: number, rtype = INT) =>
      m.run(build((d) => { d.emit(encodeLdv(D.DIF_OP_LDGS, id, 1)); d.emit(encodeRet(1)); }, rtype), ctx);
    expect(get(D.DIF_VAR_PID).value).toBe(42n);
    expect(get(D.DIF_VAR_TID).value).toBe(43n);
    expect(get(D.DIF_VAR_PPID).value).toBe(1n);
    expect(get(D.DIF_VAR_UID).value).toBe(1000n);
    expect(get(D.DIF_VAR_GID).value).toBe(100n);
    expect(get(D.DIF_VAR_TIMESTAMP).value).toBe(123456789n);
    expect(get(D.DIF_VAR_ID).value).toBe(1n);
    expect(get(D.DIF_VAR_EPID).value).toBe(5n);
    expect(get(D.DIF_VAR_ERRNO).value).toBe(2n);
    expect(get(D.DIF_VAR_CURCPU).value).toBe(1n);
    expect(get(D.DIF_VAR_ARG0).value).toBe(10n);
    expect(get(D.DIF_VAR_ARG1).signed).toBe(-1n);
    expect(get(D.DIF_VAR_ARG9).value).toBe(0n);
    expect(get(D.DIF_VAR_EXECNAME, STR).string).toBe('node');
    expect(get(D.DIF_VAR_PROBEPROV, STR).string).toBe('dtrace');
    expect(get(D.DIF_VAR_PROBENAME, STR).string).toBe('BEGIN');
    expect(get(D.DIF_VAR_PROBEFUNC, STR).string).toBe('');
  });

  test('an unknown built-in variable is an illegal operation', () => {
    const f = fault(() => new DifMachine().run(build((d) => { d.emit(encodeLdv(D.DIF_OP_LDGS, 0x4ff, 1)); d.emit(encodeRet(1)); })));
    expect(f.fault).toBe(D.DTRACEFLT_ILLOP);
    expect(f.message).toBe('illegal operation');
  });

  test('ldga reads args[] by index; ldta is an illegal operation', () => {
    const m = new DifMachine();
    expect(m.run(build((d) => {
      d.setx(2n, 1);
      d.emit(encodeLda(D.DIF_OP_LDGA, D.DIF_VAR_ARGS, 1, 2));
      d.emit(encodeRet(2));
    }), { args: [1n, 2n, 3n] }).value).toBe(3n);
    expect(fault(() => m.run(build((d) => {
      d.emit(encodeLda(D.DIF_OP_LDTA, D.DIF_VAR_ARGS, 0, 2));
      d.emit(encodeRet(2));
    }))).fault).toBe(D.DTRACEFLT_ILLOP);
  });

  test('stgs/ldgs: global scalars by value persist across runs', () => {
    const m = new DifMachine();
    m.run(build((d) => {
      d.variable(variable('x', G, D.DIFV_SCOPE_GLOBAL, D.DIFV_KIND_SCALAR));
      d.setx(7n, 1);
      d.emit(encodeStv(D.DIF_OP_STGS, G, 1));
      d.emit(encodeRet(0));
    }));
    expect(m.run(build((d) => { d.emit(encodeLdv(D.DIF_OP_LDGS, G, 1)); d.emit(encodeRet(1)); })).value).toBe(7n);
    expect(m.run(build((d) => { d.emit(encodeLdv(D.DIF_OP_LDGS, G + 1, 1)); d.emit(encodeRet(1)); })).value).toBe(0n);
  });

  test('stgs/ldgs: global strings are copied by reference into the variable', () => {
    const m = new DifMachine();
    const sv = variable('s', G, D.DIFV_SCOPE_GLOBAL, D.DIFV_KIND_SCALAR, STR);
    const get = build((d) => { d.variable(sv); d.emit(encodeLdv(D.DIF_OP_LDGS, G, 1)); d.emit(encodeRet(1)); }, STR);
    expect(m.run(get).string).toBe(''); // never assigned: the empty string
    m.run(build((d) => { d.variable(sv); d.sets('kept', 1); d.emit(encodeStv(D.DIF_OP_STGS, G, 1)); d.emit(encodeRet(0)); }));
    expect(m.run(get).string).toBe('kept');
    m.run(build((d) => { d.variable(sv); d.emit(encodeStv(D.DIF_OP_STGS, G, 0)); d.emit(encodeRet(0)); }));
    expect(m.run(get).value).toBe(0n); // NULL
  });

  test('stts/ldts: thread-locals are per thread and storing 0 frees them', () => {
    const m = new DifMachine();
    const set = (v: bigint) => build((d) => { d.setx(v, 1); d.emit(encodeStv(D.DIF_OP_STTS, G, 1)); d.emit(encodeRet(0)); });
    const get = build((d) => { d.emit(encodeLdv(D.DIF_OP_LDTS, G, 1)); d.emit(encodeRet(1)); });
    m.run(set(5n), { tid: 1n });
    m.run(set(6n), { tid: 2n });
    expect(m.run(get, { tid: 1n }).value).toBe(5n);
    expect(m.run(get, { tid: 2n }).value).toBe(6n);
    expect(m.run(get, { tid: 3n }).value).toBe(0n);
    m.run(set(0n), { tid: 1n });
    expect(m.dynvars.size).toBe(1);
  });

  test('dynamic variables beyond the space available are dropped and counted', () => {
    const m = new DifMachine({ dynvarLimit: 1 });
    const set = (v: bigint) => build((d) => { d.setx(v, 1); d.emit(encodeStv(D.DIF_OP_STTS, G, 1)); d.emit(encodeRet(0)); });
    const get = build((d) => { d.emit(encodeLdv(D.DIF_OP_LDTS, G, 1)); d.emit(encodeRet(1)); });
    m.run(set(5n), { tid: 1n });
    m.run(set(6n), { tid: 2n });
    expect(m.dynvarDrops).toBe(1);
    expect(m.run(get, { tid: 2n }).value).toBe(0n);
    m.run(set(7n), { tid: 1n }); // an existing variable still takes new values
    expect(m.run(get, { tid: 1n }).value).toBe(7n);
    expect(m.dynvarDrops).toBe(1);
  });

  test('stts/ldts of a string', () => {
    const m = new DifMachine();
    const v = variable('s', G, D.DIFV_SCOPE_THREAD, D.DIFV_KIND_SCALAR, STR);
    m.run(build((d) => { d.variable(v); d.sets('tls', 1); d.emit(encodeStv(D.DIF_OP_STTS, G, 1)); d.emit(encodeRet(0)); }), { tid: 9n });
    const get = build((d) => { d.variable(v); d.emit(encodeLdv(D.DIF_OP_LDTS, G, 1)); d.emit(encodeRet(1)); }, STR);
    expect(m.run(get, { tid: 9n }).string).toBe('tls');
    expect(m.run(get, { tid: 8n }).value).toBe(0n);
  });

  test('stls/ldls: clause-locals last for one probe firing', () => {
    const m = new DifMachine();
    m.run(build((d) => { d.setx(3n, 1); d.emit(encodeStv(D.DIF_OP_STLS, G, 1)); d.emit(encodeRet(0)); }));
    const get = build((d) => { d.emit(encodeLdv(D.DIF_OP_LDLS, G, 1)); d.emit(encodeRet(1)); });
    expect(m.run(get).value).toBe(3n);
    m.newFiring();
    expect(m.run(get).value).toBe(0n);
    // There are no built-in clause-locals: ids below the user base read 0.
    expect(m.run(build((d) => { d.emit(encodeLdv(D.DIF_OP_LDLS, D.DIF_VAR_PID, 1)); d.emit(encodeRet(1)); }), { pid: 5n }).value).toBe(0n);
  });

  test('stls/ldls of a string', () => {
    const m = new DifMachine();
    const v = variable('s', G, D.DIFV_SCOPE_LOCAL, D.DIFV_KIND_SCALAR, STR);
    m.run(build((d) => { d.variable(v); d.sets('local', 1); d.emit(encodeStv(D.DIF_OP_STLS, G, 1)); d.emit(encodeRet(0)); }));
    expect(m.run(build((d) => { d.variable(v); d.emit(encodeLdv(D.DIF_OP_LDLS, G, 1)); d.emit(encodeRet(1)); }, STR)).string).toBe('local');
  });

  test('stgaa/ldgaa: associative arrays keyed by tuples; strings compare by value', () => {
    const m = new DifMachine();
    m.mapKernel(0x2000n, 'key');
    const store = build((d) => {
      d.sets('key', 1);
      d.setx(1n, 2);
      d.emit(encodePushts(D.DIF_OP_PUSHTR, D.DIF_TYPE_STRING, 0, 1));
      d.emit(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, 2));
      d.setx(99n, 3);
      d.emit(encodeStv(D.DIF_OP_STGAA, G, 3));
      d.emit(encodeFlushts());
      d.emit(encodeRet(0));
    });
    m.run(store);
    const get = (keyAddr: bigint, n: bigint) => m.run(build((d) => {
      d.setx(keyAddr, 1);
      d.setx(n, 2);
      d.emit(encodePushts(D.DIF_OP_PUSHTR, D.DIF_TYPE_STRING, 0, 1));
      d.emit(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, 2));
      d.emit(encodeLdv(D.DIF_OP_LDGAA, G, 3));
      d.emit(encodeRet(3));
    })).value;
    expect(get(0x2000n, 1n)).toBe(99n); // another copy of "key"
    expect(get(0x2000n, 2n)).toBe(0n);
  });

  test('sttaa/ldtaa: thread-local associative arrays', () => {
    const m = new DifMachine();
    const keyed = (op: number, v = 0n) => build((d) => {
      d.setx(5n, 1);
      d.emit(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, 1));
      if (op === D.DIF_OP_STTAA) {
        d.setx(v, 2);
        d.emit(encodeStv(op, G, 2));
        d.emit(encodeRet(0));
      } else {
        d.emit(encodeLdv(op, G, 2));
        d.emit(encodeRet(2));
      }
    });
    m.run(keyed(D.DIF_OP_STTAA, 11n), { tid: 1n });
    expect(m.run(keyed(D.DIF_OP_LDTAA), { tid: 1n }).value).toBe(11n);
    expect(m.run(keyed(D.DIF_OP_LDTAA), { tid: 2n }).value).toBe(0n);
  });
});

describe('the tuple stack', () => {
  test('more than DIF_DTR_STACK (nine) entries: tuple stack overflow', () => {
    expect(D.DIF_DTR_STACK).toBe(9);
    const f = fault(() => new DifMachine().run(build((d) => {
      for (let i = 0; i < 10; i++) d.emit(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, 0));
      d.emit(encodeRet(0));
    })));
    expect(f.fault).toBe(D.DTRACEFLT_TUPOFLOW);
    expect(f.message).toBe('tuple stack overflow');
    expect(f.offset).toBe(36);
    // pushtr counts too
    expect(fault(() => new DifMachine().run(build((d) => {
      d.sets('s', 1);
      for (let i = 0; i < 10; i++) d.emit(encodePushts(D.DIF_OP_PUSHTR, D.DIF_TYPE_STRING, 0, 1));
      d.emit(encodeRet(0));
    }))).fault).toBe(D.DTRACEFLT_TUPOFLOW);
  });

  test('popts drops the top entry and flushts empties the stack', () => {
    // strlen() takes its argument from the bottom of the stack.
    const m = new DifMachine();
    const run = (extra: (d: DifBuilder) => void) => m.run(build((d) => {
      d.sets('abc', 1);
      d.sets('abcdef', 2);
      extra(d);
      d.emit(encodeCall(D.DIF_SUBR_STRLEN, 3));
      d.emit(encodeRet(3));
    })).value;
    expect(run((d) => {
      d.emit(encodePushts(D.DIF_OP_PUSHTR, D.DIF_TYPE_STRING, 0, 1));
      d.emit(encodePushts(D.DIF_OP_PUSHTR, D.DIF_TYPE_STRING, 0, 2));
    })).toBe(3n);
    expect(run((d) => {
      d.emit(encodePushts(D.DIF_OP_PUSHTR, D.DIF_TYPE_STRING, 0, 1));
      d.emit(encodeFlushts());
      d.emit(encodePushts(D.DIF_OP_PUSHTR, D.DIF_TYPE_STRING, 0, 2));
    })).toBe(6n);
    expect(run((d) => {
      d.emit(encodePushts(D.DIF_OP_PUSHTR, D.DIF_TYPE_STRING, 0, 1));
      d.emit(encodePopts());
      d.emit(encodePushts(D.DIF_OP_PUSHTR, D.DIF_TYPE_STRING, 0, 2));
    })).toBe(6n);
  });
});

describe('load-time checks', () => {
  test('xlate and xlarg are refused as invalid opcodes', () => {
    for (const op of [D.DIF_OP_XLATE, D.DIF_OP_XLARG]) {
      const difo = raw([encodeXlate(op, 0, 1), encodeRet(1)]);
      expect(validateDifo(difo)).toEqual([`[0]: invalid opcode ${op}`]);
      expect(() => new DifMachine().run(difo)).toThrow(DifLoadError);
    }
  });
  test('backward branches, writes to %r0, bad table references and a missing ret are refused', () => {
    expect(validateDifo(raw([encodeNop(), encodeBranch(D.DIF_OP_BA, 0), encodeRet(0)]))).toEqual(['[1]: backward branch to 0']);
    expect(validateDifo(raw([encodeBranch(D.DIF_OP_BA, 9), encodeRet(0)]))).toEqual(['[0]: invalid branch target 9']);
    expect(validateDifo(raw([encodeMov(1, 0), encodeRet(0)]))).toEqual(['[0]: cannot write to %r0']);
    expect(validateDifo(raw([encodeR(D.DIF_OP_ADD, 8, 1, 2), encodeRet(2)]))).toEqual(['[0]: invalid register 8']);
    expect(validateDifo(raw([encodeLdv(D.DIF_OP_SETX, 3, 1), encodeRet(1)]))).toEqual(['[0]: invalid integer ref 3']);
    expect(validateDifo(raw([encodeLdv(D.DIF_OP_SETS, 3, 1), encodeRet(1)]))).toEqual(['[0]: invalid string ref 3']);
    expect(validateDifo(raw([encodeStv(D.DIF_OP_STGS, D.DIF_VAR_PID, 1), encodeRet(0)]))).toEqual([`[0]: invalid variable ${D.DIF_VAR_PID}`]);
    expect(validateDifo(raw([encodeCall(D.DIF_SUBR_MAX + 1, 1), encodeRet(1)]))).toEqual([`[0]: invalid subr ${D.DIF_SUBR_MAX + 1}`]);
    expect(validateDifo(raw([encodeNop()]))).toEqual(["expected 'ret' as last DIF instruction"]);
    expect(validateDifo(raw([0, encodeRet(0)]))).toEqual(['[0]: invalid opcode 0']);
  });
});

// ---------------------------------------------------------------------------------------------
// Subroutines

type Arg = string | bigint;

/** CALL subr with string (by reference) and integer arguments on the tuple stack. */
function call(m: DifMachine, subr: number, args: Arg[], rtype: DifType = INT) {
  return m.run(build((d) => {
    args.forEach((a, i) => {
      const r = 1 + (i % 6);
      if (typeof a === 'string') {
        d.sets(a, r);
        d.emit(encodePushts(D.DIF_OP_PUSHTR, D.DIF_TYPE_STRING, 0, r));
      } else {
        d.setx(a, r);
        d.emit(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, r));
      }
    });
    d.emit(encodeCall(subr, 7));
    d.emit(encodeFlushts());
    d.emit(encodeRet(7));
  }, rtype));
}
const callS = (m: DifMachine, subr: number, args: Arg[]): string => call(m, subr, args, STR).string!;
const callI = (m: DifMachine, subr: number, args: Arg[]): bigint => call(m, subr, args).signed;

describe('string subroutines', () => {
  const m = new DifMachine();
  test('strlen', () => {
    expect(callI(m, D.DIF_SUBR_STRLEN, ['foobar'])).toBe(6n);
    expect(callI(m, D.DIF_SUBR_STRLEN, [''])).toBe(0n);
    expect(callI(new DifMachine({ strsize: 4 }), D.DIF_SUBR_STRLEN, ['foobar'])).toBe(4n);
    expect(fault(() => callI(m, D.DIF_SUBR_STRLEN, [0n])).message).toBe('invalid address (0x0)');
  });
  test('strjoin', () => {
    expect(callS(m, D.DIF_SUBR_STRJOIN, ['foo', 'bar'])).toBe('foobar');
    expect(callS(m, D.DIF_SUBR_STRJOIN, ['', ''])).toBe('');
    const f = fault(() => callS(new DifMachine({ strsize: 6 }), D.DIF_SUBR_STRJOIN, ['foo', 'bar']));
    expect(f.message).toBe('out of scratch space');
    expect(callS(new DifMachine({ strsize: 7 }), D.DIF_SUBR_STRJOIN, ['foo', 'bar'])).toBe('foobar');
  });
  test('substr', () => {
    const sub = (...a: Arg[]) => callS(m, D.DIF_SUBR_SUBSTR, a);
    expect(sub('foobar', 2n, 3n)).toBe('oba');
    expect(sub('foobar', 2n)).toBe('obar');
    expect(sub('foobar', U(-2n))).toBe('ar');
    expect(sub('foobar', U(-8n), 4n)).toBe('fo');
    expect(sub('foobar', 6n)).toBe('');
    expect(sub('foobar', 1n, U(-2n))).toBe('oob');
    expect(sub('foobar', 0n, 100n)).toBe('foobar');
  });
  test('index, rindex and strstr', () => {
    expect(callI(m, D.DIF_SUBR_INDEX, ['foobar', 'ba'])).toBe(3n);
    expect(callI(m, D.DIF_SUBR_INDEX, ['foobar', 'o'])).toBe(1n);
    expect(callI(m, D.DIF_SUBR_INDEX, ['foobar', 'o', 2n])).toBe(2n);
    expect(callI(m, D.DIF_SUBR_INDEX, ['foobar', 'o', 3n])).toBe(-1n);
    expect(callI(m, D.DIF_SUBR_INDEX, ['foobar', 'x'])).toBe(-1n);
    expect(callI(m, D.DIF_SUBR_INDEX, ['foobar', '', 10n])).toBe(6n);
    expect(callI(m, D.DIF_SUBR_RINDEX, ['foobar', 'o'])).toBe(2n);
    expect(callI(m, D.DIF_SUBR_RINDEX, ['foobar', 'o', 1n])).toBe(1n);
    expect(callI(m, D.DIF_SUBR_RINDEX, ['foobar', 'o', U(-1n)])).toBe(-1n);
    expect(callI(m, D.DIF_SUBR_RINDEX, ['foobar', '', U(-1n)])).toBe(0n);
    expect(callI(m, D.DIF_SUBR_RINDEX, ['foobar', 'foobarx'])).toBe(-1n);
    expect(callS(m, D.DIF_SUBR_STRSTR, ['foobar', 'ob'])).toBe('obar');
    expect(call(m, D.DIF_SUBR_STRSTR, ['foobar', 'x']).value).toBe(0n);
  });
  test('strchr and strrchr', () => {
    expect(callS(m, D.DIF_SUBR_STRCHR, ['a/b/c', 47n])).toBe('/b/c');
    expect(callS(m, D.DIF_SUBR_STRRCHR, ['a/b/c', 47n])).toBe('/c');
    expect(call(m, D.DIF_SUBR_STRCHR, ['abc', 120n]).value).toBe(0n);
    expect(callS(m, D.DIF_SUBR_STRCHR, ['abc', 0n])).toBe(''); // the terminating NUL
  });
  test('strtok keeps its place between calls', () => {
    const t = new DifMachine();
    expect(callS(t, D.DIF_SUBR_STRTOK, [',,a,bc,,d', ','])).toBe('a');
    expect(callS(t, D.DIF_SUBR_STRTOK, [0n, ','])).toBe('bc');
    expect(callS(t, D.DIF_SUBR_STRTOK, [0n, ','])).toBe('d');
    expect(call(t, D.DIF_SUBR_STRTOK, [0n, ',']).value).toBe(0n);
    expect(call(t, D.DIF_SUBR_STRTOK, [0n, ',']).value).toBe(0n);
    expect(call(t, D.DIF_SUBR_STRTOK, [',,,', ',']).value).toBe(0n);
  });
  test('toupper and tolower', () => {
    expect(callS(m, D.DIF_SUBR_TOUPPER, ['Hello, World 1'])).toBe('HELLO, WORLD 1');
    expect(callS(m, D.DIF_SUBR_TOLOWER, ['Hello, World 1'])).toBe('hello, world 1');
  });
  test('basename and dirname', () => {
    const cases: [string, string, string][] = [
      ['/usr/bin/ls', 'ls', '/usr/bin'], ['/usr/bin/', 'bin', '/usr'], ['usr', 'usr', '.'],
      ['/usr', 'usr', '/'], ['/', '/', '/'], ['///', '/', '/'], ['', '.', '.'], ['a//b', 'b', 'a'],
      ['//usr//', 'usr', '/'],
    ];
    for (const [path, base, dir] of cases) {
      expect(callS(m, D.DIF_SUBR_BASENAME, [path]), `basename(${path})`).toBe(base);
      expect(callS(m, D.DIF_SUBR_DIRNAME, [path]), `dirname(${path})`).toBe(dir);
    }
  });
  test('cleanpath', () => {
    // The cases of DTrace's own test of cleanpath().
    const cases: [string, string][] = [
      ['/foo/bar/baz', '/foo/bar/baz'], ['/foo/bar///baz/', '/foo/bar/baz'], ['/foo/bar/baz/', '/foo/bar/baz'],
      ['/foo/bar/baz//', '/foo/bar/baz'], ['/foo/bar/baz/.', '/foo/bar/baz'], ['/foo/bar/baz/./', '/foo/bar/baz'],
      ['/foo/bar/../../baz/.//', '/baz'], ['foo/bar/./././././baz/', 'foo/bar/baz'],
      ['/foo/bar/baz/../../../../../../', '/'], ['/../../../../../../', '/'], ['/./', '/'],
      ['/foo/bar/baz/../../bop/bang/../../bar/baz/', '/foo/bar/baz'], ['./', '.'], ['//', '/'], ['/.', '/'],
      ['/./.', '/'], ['/.//', '/'], ['.', '.'], ['/////', '/'], ['', ''], ['a/.', 'a'], ['a/./.', 'a'],
      ['./a', 'a'], ['././a', 'a'], ['..', '..'], ['../..', '../..'], ['../../..', '../../..'],
      ['a/..', '.'], ['abc', 'abc'], ['a/', 'a'], ['/abc', '/abc'], ['z/a/../b', 'z/b'], ['/z/a/../b', '/z/b'],
      ['z/a/b/../../././c///d/e', 'z/c/d/e'], ['/a/../b', '/b'], ['/a/..', '/'], ['/a/../..', '/'],
      ['a/../b', 'b'], ['a/../..', '..'],
    ];
    for (const [path, want] of cases) expect(callS(m, D.DIF_SUBR_CLEANPATH, [path]), path).toBe(want);
  });
  test('lltostr', () => {
    expect(callS(m, D.DIF_SUBR_LLTOSTR, [12345n])).toBe('12345');
    expect(callS(m, D.DIF_SUBR_LLTOSTR, [U(-42n)])).toBe('-42');
    expect(callS(m, D.DIF_SUBR_LLTOSTR, [0n])).toBe('0');
    expect(callS(m, D.DIF_SUBR_LLTOSTR, [1n << 63n])).toBe('-9223372036854775808');
    expect(callS(m, D.DIF_SUBR_LLTOSTR, [255n, 16n])).toBe('0xff');
    expect(callS(m, D.DIF_SUBR_LLTOSTR, [0n, 16n])).toBe('0x0');
    expect(callS(m, D.DIF_SUBR_LLTOSTR, [8n, 8n])).toBe('010');
    expect(callS(m, D.DIF_SUBR_LLTOSTR, [5n, 2n])).toBe('101');
    expect(callS(m, D.DIF_SUBR_LLTOSTR, [U(-1n), 16n])).toBe('0xffffffffffffffff');
    expect(fault(() => callS(m, D.DIF_SUBR_LLTOSTR, [5n, 1n])).fault).toBe(D.DTRACEFLT_ILLOP);
    expect(fault(() => callS(m, D.DIF_SUBR_LLTOSTR, [5n, 37n])).message).toBe('illegal operation');
  });
  test('strtoll', () => {
    expect(callI(m, D.DIF_SUBR_STRTOLL, ['  -123abc'])).toBe(-123n);
    expect(callI(m, D.DIF_SUBR_STRTOLL, ['+77'])).toBe(77n);
    expect(callI(m, D.DIF_SUBR_STRTOLL, ['0x1F', 16n])).toBe(31n);
    expect(callI(m, D.DIF_SUBR_STRTOLL, ['ff', 16n])).toBe(255n);
    expect(callI(m, D.DIF_SUBR_STRTOLL, ['777', 8n])).toBe(511n);
    expect(callI(m, D.DIF_SUBR_STRTOLL, ['zz', 36n])).toBe(1295n);
    expect(callI(m, D.DIF_SUBR_STRTOLL, ['x'])).toBe(0n);
    expect(fault(() => callI(m, D.DIF_SUBR_STRTOLL, ['1', 0n])).fault).toBe(D.DTRACEFLT_ILLOP);
  });
  test('string results use strsize bytes of scratch each; too many is out of scratch space', () => {
    const small = new DifMachine({ strsize: 64, scratchSize: 100 });
    expect(call(small, D.DIF_SUBR_TOUPPER, ['x']).scratchUsed).toBe(64);
    const f = fault(() => small.run(build((d) => {
      d.sets('x', 1);
      d.emit(encodePushts(D.DIF_OP_PUSHTR, D.DIF_TYPE_STRING, 0, 1));
      d.emit(encodeCall(D.DIF_SUBR_TOUPPER, 2));
      d.emit(encodeCall(D.DIF_SUBR_TOUPPER, 2));
      d.emit(encodeRet(2));
    })));
    expect(f.fault).toBe(D.DTRACEFLT_NOSCRATCH);
    expect(f.offset).toBe(12);
  });
});

describe('numeric and address subroutines', () => {
  const m = new DifMachine();
  test('byte order', () => {
    expect(callI(m, D.DIF_SUBR_HTONS, [0x1234n])).toBe(0x3412n);
    expect(callI(m, D.DIF_SUBR_NTOHS, [0x3412n])).toBe(0x1234n);
    expect(callI(m, D.DIF_SUBR_HTONL, [0x12345678n])).toBe(0x78563412n);
    expect(callI(m, D.DIF_SUBR_NTOHL, [0x78563412n])).toBe(0x12345678n);
    expect(call(m, D.DIF_SUBR_HTONLL, [0x0102030405060708n]).value).toBe(0x0807060504030201n);
    expect(call(m, D.DIF_SUBR_NTOHLL, [0x0807060504030201n]).value).toBe(0x0102030405060708n);
  });
  test('inet_ntoa, inet_ntoa6 and inet_ntop', () => {
    const n = new DifMachine();
    n.mapKernel(0x3000n, Uint8Array.from([192, 168, 1, 20]));
    expect(callS(n, D.DIF_SUBR_INET_NTOA, [0x3000n])).toBe('192.168.1.20');
    expect(callS(n, D.DIF_SUBR_INET_NTOP, [BigInt(AF_INET), 0x3000n])).toBe('192.168.1.20');
    // The addresses of DTrace's test of inet_ntoa6().
    const v6: [number[], string][] = [
      [[0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x14, 0x4f, 0xff, 0xfe, 0x0b, 0x76, 0xc8], 'fe80::214:4fff:fe0b:76c8'],
      [[0x10, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0x08, 0x08, 0, 0x0c, 0x41, 0x7a], '1080::808:c:417a'],
      [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], '::1'],
      [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], '::'],
      [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x7f, 0, 0, 1], '127.0.0.1'],
      [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0x7f, 0, 0, 1], '127.0.0.1'],
      [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfe, 0x7f, 0, 0, 1], '::fffe:7f00:1'],
      [[0xfe, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0x02, 0x14, 0, 0, 0, 0, 0, 0], 'fe12:3456:789a:bcde:214::'],
      [[0xfe, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0x02, 0x14, 0x4f, 0xff, 0, 0, 0, 0], 'fe12:3456:789a:bcde:214:4fff::'],
      [[0xfe, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0x02, 0x14, 0x4f, 0xff, 0xfe, 0x0b, 0, 0], 'fe12:3456:789a:bcde:214:4fff:fe0b:0'],
    ];
    // inet_ntop() writes v4-compatible and v4-mapped addresses whole; inet_ntoa6() only their quad.
    const ntop: Record<number, string> = { 4: '::127.0.0.1', 5: '::ffff:127.0.0.1' };
    v6.forEach(([bytes, text], i) => {
      const addr = 0x4000n + BigInt(i) * 0x100n;
      n.mapKernel(addr, Uint8Array.from(bytes));
      expect(callS(n, D.DIF_SUBR_INET_NTOA6, [addr]), text).toBe(text);
      expect(callS(n, D.DIF_SUBR_INET_NTOP, [BigInt(AF_INET6), addr])).toBe(ntop[i] ?? text);
    });
    expect(fault(() => callS(n, D.DIF_SUBR_INET_NTOP, [99n, 0x3000n])).fault).toBe(D.DTRACEFLT_ILLOP);
    expect(fault(() => callS(n, D.DIF_SUBR_INET_NTOA, [0n])).message).toBe('invalid address (0x0)');
  });
  test('json: selectors, values as text, NULL for what it cannot find or read', () => {
    const j = (text: string, sel: string, limit = 256): string | null => {
      const b = new Uint8Array(limit);
      b.set(Buffer.from(text, 'latin1').subarray(0, limit));
      const r = jsonSelect(b, Buffer.from(sel, 'latin1'), limit);
      return r === null ? null : Buffer.from(r).toString('latin1');
    };
    const doc = '{"a":{"b":[1,2,{"c":"d\\"e"}]},"t":true,"n":-1.5e3}';
    expect(j(doc, 'a.b[1]')).toBe('2');
    expect(j(doc, 'a.b[2].c')).toBe('d\\"e');
    expect(j(doc, 'a.b')).toBe('[1,2,{"c":"d\\"e"}]');
    expect([j(doc, 't'), j(doc, 'n')]).toEqual(['true', '-1.5e3']);
    expect([j(doc, 'x'), j(doc, 'a.b[3]'), j(doc, 't.x')]).toEqual([null, null, null]);
    expect(j('[[5,6]]', '[0][1]')).toBe('6');
    expect([j('{"a" 1}', 'a'), j('{"a":0x1}', 'a'), j('{"a":1', 'a'), j('{"a":nul}', 'a')]).toEqual([null, null, null, null]);
    expect([j('{"a":"xyz"}', 'a', 10), j('{"a":"xyz"}', 'a', 9)]).toEqual(['xyz', null]);
  });
  test('IPv6 text with DTrace\'s zero-run choice', () => {
    const b = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));
    expect(ipv6(b('00010000000200030004000500060007'), false)).toBe('1::2:3:4:5:6:7');
    expect(ipv6(b('20010db8000000001111000000002222'), false)).toBe('2001:db8::1111:0:0:2222');
    expect(ipv6(b('20010db8000000000001000000000002'), false)).toBe('2001:db8:0:0:1::2');
    expect(ipv6(b('00000000000000000000ffff01020304'), false)).toBe('::ffff:1.2.3.4');
    expect(ipv6(b('00000000000000000000ffff01020304'), true)).toBe('1.2.3.4');
  });
  test('rand', () => {
    let i = 0n;
    const r = new DifMachine({ rand: () => ++i });
    expect(callI(r, D.DIF_SUBR_RAND, [])).toBe(1n);
    expect(callI(r, D.DIF_SUBR_RAND, [])).toBe(2n);
    const d = new DifMachine();
    expect(callI(d, D.DIF_SUBR_RAND, [])).not.toBe(callI(d, D.DIF_SUBR_RAND, []));
  });
  test('progenyof', () => {
    const p = new DifMachine();
    const ctx = { pid: 100n, ancestors: [50n, 1n] };
    const progenyof = (pid: bigint) => p.run(build((d) => {
      d.setx(pid, 1);
      d.emit(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, 1));
      d.emit(encodeCall(D.DIF_SUBR_PROGENYOF, 2));
      d.emit(encodeRet(2));
    }), ctx).value;
    expect(progenyof(100n)).toBe(1n);
    expect(progenyof(50n)).toBe(1n);
    expect(progenyof(1n)).toBe(1n);
    expect(progenyof(77n)).toBe(0n);
  });
  test('a subroutine the model does not have is reported, not faked', () => {
    expect(() => call(m, D.DIF_SUBR_MUTEX_OWNED, [0n])).toThrow(/does not implement subroutine mutex_owned/);
  });
});

describe('memory subroutines', () => {
  const UA = 0x7000_0000n;
  function machine(): DifMachine {
    const m = new DifMachine();
    m.mapUser(UA, 'user string');
    return m;
  }
  test('alloca returns aligned scratch; too much is out of scratch space', () => {
    const m = new DifMachine({ scratchSize: 64 });
    const a = call(m, D.DIF_SUBR_ALLOCA, [10n]);
    expect(a.value % 8n).toBe(0n);
    expect(a.scratchUsed).toBe(10);
    expect(fault(() => call(m, D.DIF_SUBR_ALLOCA, [65n])).fault).toBe(D.DTRACEFLT_NOSCRATCH);
  });
  test('bcopy copies into scratch; not into memory DTrace does not own', () => {
    const m = new DifMachine();
    const r = m.run(build((d) => {
      d.setx(16n, 1);
      d.emit(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, 1));
      d.emit(encodeCall(D.DIF_SUBR_ALLOCA, 2));
      d.emit(encodeFlushts());
      d.sets('bytes', 3);
      d.setx(6n, 4);
      d.emit(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, 3));
      d.emit(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, 2));
      d.emit(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, 4));
      d.emit(encodeCall(D.DIF_SUBR_BCOPY, 5));
      d.emit(encodeRet(2));
    }, STR));
    expect(r.string).toBe('bytes');
    m.mapKernel(0x5000n, 'kernel');
    const f = fault(() => call(m, D.DIF_SUBR_BCOPY, ['x', 0x5000n, 1n]));
    expect(f.message).toBe('invalid address (0x5000)');
  });
  test('copyin and copyinstr read the traced process', () => {
    const m = machine();
    expect(callS(m, D.DIF_SUBR_COPYINSTR, [UA])).toBe('user string');
    expect(callS(m, D.DIF_SUBR_COPYINSTR, [UA, 4n])).toBe('user');
    const c = call(m, D.DIF_SUBR_COPYIN, [UA + 5n, 3n]);
    expect(m.readString(c.value, 3)).toBe('str');
    expect(c.value % 8n).toBe(0n);
  });
  test('copyin from an address the process has not mapped: invalid address', () => {
    const m = machine();
    expect(fault(() => call(m, D.DIF_SUBR_COPYIN, [0x10n, 4n])).message).toBe('invalid address (0x10)');
    // Running off the end of the mapping faults at the first missing byte.
    expect(fault(() => call(m, D.DIF_SUBR_COPYIN, [UA + 8n, 8n])).illval).toBe(UA + 12n);
    expect(fault(() => callS(m, D.DIF_SUBR_COPYINSTR, [0n])).message).toBe('invalid address (0x0)');
    // Kernel memory is not the process's.
    m.mapKernel(0x5000n, 'kernel');
    expect(fault(() => callS(m, D.DIF_SUBR_COPYINSTR, [0x5000n])).fault).toBe(D.DTRACEFLT_BADADDR);
    expect(fault(() => call(m, D.DIF_SUBR_COPYIN, [UA, 100000n])).fault).toBe(D.DTRACEFLT_NOSCRATCH);
  });
  test('copyinto copies into scratch the program allocated', () => {
    const m = machine();
    const r = m.run(build((d) => {
      d.setx(8n, 1);
      d.emit(encodeAllocs(1, 2));
      d.setx(UA, 3);
      d.setx(4n, 4);
      d.emit(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, 3));
      d.emit(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, 4));
      d.emit(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, 2));
      d.emit(encodeCall(D.DIF_SUBR_COPYINTO, 5));
      d.emit(encodeRet(2));
    }, STR));
    expect(r.string).toBe('user');
    expect(fault(() => call(m, D.DIF_SUBR_COPYINTO, [UA, 4n, 0x10n])).message).toBe('invalid address (0x10)');
  });
});

// ---------------------------------------------------------------------------------------------
// DIF from the code generator

type Traced = bigint | string;

/**
 * Compile one probe firing's clauses and run them on the machine as DTrace runs ECBs: predicate,
 * then each action. Returns what trace()/printf() arguments evaluate to (statements are skipped).
 */
function fire(text: string, ctx: ProbeContext = {}, m = new DifMachine()): Traced[] {
  const { program } = compile([{ kind: 'n', text, name: text }], {
    registry: new ProbeRegistry(), options: new Map(), macroArgs: [], zdefs: true,
  });
  const out: Traced[] = [];
  m.newFiring();
  for (const ecb of program.ecbs) {
    const r = m.runClause(ecb, ctx);
    if (r.fault) throw r.fault.fault;
    ecb.actions.forEach((a, n) => {
      const v = r.actions[n];
      if (!a.difo || !v || a.difo.rtype.size === 0) return;
      out.push(v.string ?? BigInt.asIntN(a.difo.rtype.size * 8, v.value));
    });
  }
  return out;
}

describe('DIF from the code generator', () => {
  test('trace(1 + 2)', () => {
    expect(fire('BEGIN { trace(1 + 2); }')).toEqual([3n]);
  });
  test('integer arithmetic', () => {
    expect(fire('BEGIN { x = 7; y = 2; printf("%d %d %d %d\\n", x / y, x % y, -x / y, x << 3); }'))
      .toEqual([3n, 1n, -3n, 56n]);
  });
  test('comparisons, ternaries and logic', () => {
    expect(fire('BEGIN { x = 5; trace(x > 3); trace(x < 3); trace(x == 5 ? 10 : 20); trace(!x); trace(~x); }'))
      .toEqual([1n, 0n, 10n, 0n, -6n]);
  });
  test('short-circuit && and || skip a division by zero', () => {
    expect(fire('BEGIN { z = 0; trace(z != 0 && 10 / z > 1); trace(z == 0 || 10 / z > 1); }')).toEqual([0n, 1n]);
  });
  test('a division by zero faults where the code generator put it', () => {
    const f = fault(() => fire('BEGIN { z = 0; trace(10 / z); }'));
    expect(f.message).toBe('divide-by-zero');
    expect(f.offset % 4).toBe(0);
    expect(f.where(2)).toBe(`divide-by-zero in action #2 at DIF offset ${f.offset}`);
    expect(f.where('predicate')).toBe(`divide-by-zero in predicate at DIF offset ${f.offset}`);
  });
  test('acceptance: string subroutines of issue 4', () => {
    expect(fire('BEGIN { s = strjoin("foo", "bar"); printf("%s %d %s %d %d\\n", s, strlen(s), substr(s, 2, 3), index(s, "ba"), rindex(s, "o")); }'))
      .toEqual(['foobar', 6n, 'oba', 3n, 2n]);
  });
  test('strings: comparison and built-ins', () => {
    expect(fire('BEGIN { s = "abc"; trace(s == "abc"); trace(s < "abd"); trace(execname); }', { execname: 'node' }))
      .toEqual([1n, 1n, 'node']);
  });
  test('operands with effects nested past the registers wait in clause-locals', () => {
    // Eleven post-increments nested to the right: the left ones cannot be computed after the
    // right, so they are spilled; the user's clause-locals beside them keep their values.
    expect(fire('BEGIN { this->x = 5; a = b = c = d = e = f = g = h = i = j = k = 3; ' +
      'trace(a++ + (b++ * (c++ + (d++ - (e++ + (f++ + (g++ + (h++ + (i++ + (j++ + k++)))))))))); trace(this->x); trace(k); }'))
      .toEqual([3n + 3n * (3n + (3n - 21n)), 5n, 4n]);
  });
  test('comparisons and ^^ with effects nested past the registers spill too', () => {
    expect(fire('BEGIN { x = 1; trace(x++ == (x++ != (x++ < (x++ <= (x++ > (x++ >= (x++ == (x++ != (x++ < (x++ + 1)))))))))); ' +
      'trace(x++ ^^ (x++ ^^ (x++ ^^ (x++ ^^ (x++ ^^ (x++ ^^ (x++ ^^ (x++ ^^ (x++ ^^ x++)))))))));}'))
      .toEqual([1n, 0n]);
  });
  test('strlen()', () => {
    expect(fire('BEGIN { trace(strlen("hello")); }')).toEqual([5n]);
  });
  test('thread-locals, clause-locals and associative arrays', () => {
    const m = new DifMachine();
    expect(fire('BEGIN { self->t = 4; this->l = 9; a["k", 1] = 5; trace(self->t + this->l + a["k", 1]); }', { tid: 1n }, m))
      .toEqual([18n]);
    // Clause-locals are shared by the clauses of one firing.
    expect(fire('BEGIN { this->v = 3; } BEGIN { trace(this->v); }')).toEqual([3n]);
    // Thread-locals are per thread.
    const n = new DifMachine();
    const d = 'BEGIN /tid == 1/ { self->t = 4; } BEGIN { trace(self->t); }';
    expect(fire(d, { tid: 1n }, n)).toEqual([4n]);
    expect(fire(d, { tid: 2n }, n)).toEqual([0n]);
  });
  test('runClause: a fault ends its clause, not the firing', () => {
    const { program } = compile([{ kind: 'n', text: 'BEGIN { z = 0; } BEGIN { trace(1); trace(1 / z); trace(2); } BEGIN /1 / z/ { trace(3); } BEGIN { trace(4); }', name: 'x' }], {
      registry: new ProbeRegistry(), options: new Map(), macroArgs: [], zdefs: true,
    });
    const m = new DifMachine();
    const [, second, third, fourth] = program.ecbs.map((e) => m.runClause(e));
    expect(second!.fired).toBe(true);
    expect(second!.actions.map((a) => a?.value)).toEqual([1n, undefined, undefined]);
    expect(second!.fault?.where).toBe(2);
    expect(second!.fault?.fault.message).toBe('divide-by-zero');
    expect(third!.fired).toBe(false);
    expect(third!.fault?.where).toBe('predicate');
    expect(fourth!.actions[0]?.value).toBe(4n);
  });
  test('strings in every kind of variable, and as keys', () => {
    expect(fire('BEGIN { s = "a"; s = strjoin(s, "b"); t[s] = 3; trace(t["ab"]); trace(s); }')).toEqual([3n, 'ab']);
    expect(fire('BEGIN { self->s = "tls"; trace(self->s); this->s = toupper(self->s); trace(this->s); }', { tid: 1n }))
      .toEqual(['tls', 'TLS']);
    expect(fire('BEGIN { s = "hello"; trace(s == "hello" ? "yes" : "no"); trace(strlen(strjoin(s, s))); }')).toEqual(['yes', 10n]);
  });
  test('narrow integer types', () => {
    expect(fire('BEGIN { x = (uint8_t)300; trace(x); y = (int16_t)-1; trace(y); trace(-1 < 0U); }')).toEqual([44n, -1n, 0n]);
  });
  test('compound assignments and increments', () => {
    expect(fire('BEGIN { i = 10; i += 5; i <<= 2; trace(i); trace(i++); trace(i); trace(--i); }')).toEqual([60n, 60n, 61n, 60n]);
  });
  test('tuple keys', () => {
    expect(fire('BEGIN { a[1, "x"] = 7; a[2, "x"] = 8; trace(a[1, "x"] + a[2, "x"]); trace(a[3, "x"]); }')).toEqual([15n, 0n]);
  });
  test('nested subroutine calls', () => {
    expect(fire('BEGIN { trace(substr(lltostr(12345), 1, 3)); trace(strtoll(lltostr(-77))); }')).toEqual(['234', -77n]);
    expect(fire('BEGIN { trace(basename(dirname("/a/b/c"))); trace(index("aaa", "a", 1)); }')).toEqual(['b', 1n]);
  });
  test('predicates', () => {
    expect(fire('BEGIN /1 > 2/ { trace(1); } BEGIN /2 > 1/ { trace(2); }')).toEqual([2n]);
  });
});

describe('stores through pointers, from the code generator', () => {
  test('byte, half, word and dword stores into alloca()d scratch, read back', () => {
    expect(fire('BEGIN { this->p = (uint8_t *)alloca(4); this->p[0] = 65; this->p[1] = 0; trace(stringof(this->p)); }'))
      .toEqual(['A']);
    expect(fire('BEGIN { this->h = (int16_t *)alloca(4); *this->h = 0x18000; this->h[1] = -3; trace(this->h[0]); trace(this->h[1]); }'))
      .toEqual([-32768n, -3n]);
    expect(fire('BEGIN { this->q = (uint32_t *)alloca(8); *this->q = 7; this->q[1] = this->q[0] * 2; trace(this->q[1]); }'))
      .toEqual([14n]);
    expect(fire('BEGIN { this->x = (uint64_t *)alloca(8); *this->x = 0x1122334455667788; ((uint8_t *)this->x)[7] = 0xff; trace(*this->x); }'))
      .toEqual([BigInt.asIntN(64, 0xff22334455667788n)]);
  });

  test('compound assignment, ++ and -- store and give C values', () => {
    expect(fire('BEGIN { this->w = (int *)alloca(4); *this->w = 10; *this->w += 5; trace(*this->w); trace((*this->w)++); trace(--*this->w); trace(*this->w); }'))
      .toEqual([15n, 15n, 15n, 15n]);
  });

  test('struct members and bit-fields in scratch', () => {
    const d = 'struct s { char c; int i; unsigned int a : 3, b : 9; }; BEGIN { this->s = (struct s *)alloca(sizeof (struct s)); ' +
      'this->s->c = 1; this->s->i = -9; this->s->a = 5; this->s->b = 300; this->s->a += 1; trace(this->s->c); trace(this->s->i); trace(this->s->a); trace(this->s->b); }';
    expect(fire(d)).toEqual([1n, -9n, 6n, 300n]);
  });

  test('a store outside scratch and variable memory is an invalid address; a misaligned one an invalid alignment', () => {
    expect(fault(() => fire('BEGIN { z = 0; *(int *)z = 1; }')).message).toBe('invalid address (0x0)');
    const m = new DifMachine();
    m.memory.map(0x1000n, new Uint8Array(16), 'kernel');
    expect(fault(() => fire('BEGIN { this->k = (long *)0x1000; *this->k = 1; }', {}, m)).message).toBe('invalid address (0x1000)');
    expect(fault(() => fire('BEGIN { this->p = (char *)alloca(8); *(short *)(this->p + 1) = 1; }')).fault).toBe(D.DTRACEFLT_BADALIGN);
  });
});

describe('struct-valued associative arrays, from the code generator', () => {
  test('an element never assigned is faulted in, zero-filled, when loaded (as dt_cg_array_op does)', () => {
    const d = 'struct ci { int calls; int max; }; struct ci i[string]; BEGIN { i["a"].calls++; i["a"].calls++; ' +
      'i["a"].max = 5; trace(i["a"].calls); trace(i["a"].max); trace(i["b"].calls); }';
    expect(fire(d)).toEqual([2n, 5n, 0n]);
  });
});

describe('struct and string assignment through pointers (COPYS), from the code generator', () => {
  test('a struct is copied whole', () => {
    const d = 'struct pt { int x; int y; }; BEGIN { this->a = (struct pt *)alloca(sizeof (struct pt)); ' +
      'this->b = (struct pt *)alloca(sizeof (struct pt)); this->a->x = 1; this->a->y = -2; *this->b = *this->a; ' +
      'this->a->x = 9; trace(this->b->x); trace(this->b->y); trace(this->a->x); }';
    expect(fire(d)).toEqual([1n, -2n, 9n]);
  });

  test('a string constant copies its length and NUL; other strings copy strsize bytes', () => {
    const d = 'struct s { string name; }; BEGIN { this->s = (struct s *)alloca(sizeof (struct s)); ' +
      'this->s->name = "abcdef"; this->s->name = "x"; trace(this->s->name); trace(((char *)this->s)[2]); ' +
      'this->s->name = execname; trace(this->s->name); trace(((char *)this->s)[5]); }';
    expect(fire(d, { execname: 'sh' })).toEqual(['x', 99n, 'sh', 0n]);
  });

  test('the target must be writable; the source is read as a load is', () => {
    const d = 'struct pt { int x; int y; }; BEGIN { z = 0; this->a = (struct pt *)alloca(8); ';
    expect(fault(() => fire(d + '*(struct pt *)z = *this->a; }')).message).toBe('invalid address (0x0)');
    expect(fault(() => fire(d + '*this->a = *(struct pt *)0x2000; }')).message).toBe('invalid address (0x2000)');
  });
});
