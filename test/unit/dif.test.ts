import { describe, expect, it } from 'vitest';
import * as D from '../../src/dif/constants.js';
import { QUANTIZE_NBUCKETS, QUANTIZE_ZEROBUCKET, quantizeBucketValue } from '../../src/dif/buckets.js';
import { SUBROUTINES, SUBROUTINE_BY_NAME, subrName } from '../../src/dif/subroutines.js';
import {
  DifBuilder,
  difIndex,
  difLabel,
  difOp,
  difR1,
  difR2,
  difRd,
  difType,
  encodeAllocs,
  encodeBranch,
  encodeCall,
  encodeCmp,
  encodeCopys,
  encodeFlushts,
  encodeLda,
  encodeLdv,
  encodeLoad,
  encodeMov,
  encodeNop,
  encodeNot,
  encodePopts,
  encodePushts,
  encodeR,
  encodeRet,
  encodeSets,
  encodeSetx,
  encodeStore,
  encodeStv,
  encodeTst,
  encodeXlate,
} from '../../src/dif/builder.js';
import { difTypeString, disassembleDifo, disassembleInstruction } from '../../src/dif/disasm.js';
import type { DifType, Difo } from '../../src/dif/difo.js';

const INT64: DifType = { kind: D.DIF_TYPE_CTF, ckind: D.CTF_K_INTEGER, flags: 0, size: 8 };
const INT32: DifType = { kind: D.DIF_TYPE_CTF, ckind: D.CTF_K_INTEGER, flags: 0, size: 4 };
const STRING: DifType = { kind: D.DIF_TYPE_STRING, ckind: D.CTF_K_UNKNOWN, flags: D.DIF_TF_BYREF, size: 256 };

describe('DIF constants', () => {
  it('number the opcodes as the headers do, 1 to 79', () => {
    expect(D.DIF_OP_OR).toBe(1);
    expect(D.DIF_OP_RET).toBe(35);
    expect(D.DIF_OP_CALL).toBe(47);
    expect(D.DIF_OP_RLDUW).toBe(76);
    expect(D.DIF_OP_XLATE).toBe(78);
    expect(D.DIF_OP_XLARG).toBe(79);
    expect(D.DIF_OP_NAMES).toHaveLength(80);
    expect(D.DIF_OP_NAMES[D.DIF_OP_SETX]).toBe('setx');
    expect(D.DIF_OP_NAMES[D.DIF_OP_RLDX]).toBe('rldx');
  });

  it('map built-in variables and subroutines both ways', () => {
    expect(D.DIF_VAR_BY_NAME.get('execname')).toBe(0x118);
    expect(D.DIF_VAR_BY_NAME.get('curcpu')).toBe(0x121);
    expect(D.DIF_VAR_BY_NAME.get('errno')).toBe(0x120);
    expect(D.DIF_VAR_NAME_BY_ID.get(D.DIF_VAR_WALLTIMESTAMP)).toBe('walltimestamp');
    const n = (name: string) => SUBROUTINE_BY_NAME.get(name)?.subr;
    expect(n('strlen')).toBe(12);
    expect(n('rindex')).toBe(34);
    expect(n('inet_ntoa6')).toBe(43);
    expect(n('toupper')).toBe(44);
    expect(n('strtoll')).toBe(48);
    expect(n('d_path')).toBe(D.DIF_SUBR_D_PATH);
    expect(SUBROUTINES.map((s) => s.subr)).toEqual(Array.from({ length: D.DIF_SUBR_MAX + 1 }, (_, i) => i));
    expect(subrName(D.DIF_SUBR_COPYINSTR)).toBe('copyinstr');
    expect(subrName(999)).toBe('unknown');
  });

  it('classify actions and name them', () => {
    expect(D.DTRACEAGG_COUNT).toBe(0x701);
    expect(D.DTRACEAGG_LLQUANTIZE).toBe(0x709);
    expect(D.DTRACEACT_SPECULATE).toBe(0x601);
    expect(D.isAggregatingAction(D.DTRACEAGG_SUM)).toBe(true);
    expect(D.isAggregatingAction(D.DTRACEACT_PRINTF)).toBe(false);
    expect(D.isPrintfLikeAction(D.DTRACEACT_FREOPEN)).toBe(true);
    expect(D.isDestructiveAction(D.DTRACEACT_SYSTEM)).toBe(true);
    expect(D.isSpeculativeAction(D.DTRACEACT_COMMIT)).toBe(true);
    expect(D.DTRACEACT_NAMES.get(D.DTRACEAGG_LQUANTIZE)).toBe('lquantize');
  });

  it('give the fault messages DTrace prints', () => {
    expect(D.faultMessage(D.DTRACEFLT_BADADDR)).toBe('invalid address');
    expect(D.faultMessage(D.DTRACEFLT_DIVZERO)).toBe('divide-by-zero');
    expect(D.faultMessage(D.DTRACEFLT_NOSCRATCH)).toBe('out of scratch space');
    expect(D.faultMessage(D.DTRACEFLT_UNKNOWN)).toBe('unknown fault');
  });

  it('pack and unpack quantize arguments', () => {
    expect(QUANTIZE_NBUCKETS).toBe(127);
    expect(quantizeBucketValue(QUANTIZE_ZEROBUCKET)).toBe(0n);
    expect(quantizeBucketValue(64)).toBe(1n);
    expect(quantizeBucketValue(65)).toBe(2n);
    expect(quantizeBucketValue(62)).toBe(-1n);
    expect(quantizeBucketValue(0)).toBe(-(1n << 62n));

    const lq = D.packLquantizeArg({ base: -10, step: 5, levels: 20 });
    expect(lq).toBe((5n << 48n) | (20n << 32n) | 0xfffffff6n);
    expect(D.unpackLquantizeArg(lq)).toEqual({ base: -10, step: 5, levels: 20 });

    const llq = D.packLlquantizeArg({ factor: 10, low: 0, high: 6, nsteps: 20 });
    expect(llq).toBe((10n << 48n) | (6n << 16n) | 20n);
    expect(D.unpackLlquantizeArg(llq)).toEqual({ factor: 10, low: 0, high: 6, nsteps: 20 });

    expect(D.unpackUstackArg(D.packUstackArg(20, 1024))).toEqual({ nframes: 20, strsize: 1024 });
    expect(() => D.packLquantizeArg({ base: 0, step: 0x10000, levels: 1 })).toThrow(RangeError);
  });
});

describe('DIF instruction encoding', () => {
  it('R format: op r1, r2, rd', () => {
    const i = encodeR(D.DIF_OP_ADD, 1, 2, 3);
    expect(i).toBe(0x07010203);
    expect([difOp(i), difR1(i), difR2(i), difRd(i)]).toEqual([D.DIF_OP_ADD, 1, 2, 3]);
    expect(encodeNot(4, 5)).toBe(0x0d040005);
    expect(encodeMov(6, 7)).toBe(0x0e060007);
    expect(encodeCmp(D.DIF_OP_SCMP, 1, 2)).toBe(0x27010200);
    expect(encodeTst(3)).toBe(0x10030000);
    expect(encodeLoad(D.DIF_OP_LDUW, 1, 2)).toBe(0x21010002);
    expect(encodeStore(D.DIF_OP_STX, 1, 2)).toBe(0x3f010002);
    expect(encodeRet(1)).toBe(0x23000001);
    expect(encodeNop()).toBe(0x24000000);
    expect(encodePopts()).toBe(0x32000000);
    expect(encodeFlushts()).toBe(0x33000000);
    expect(encodeAllocs(1, 2)).toBe(0x3a010002);
    expect(encodeCopys(1, 2, 3)).toBe(0x3b010203);
  });

  it('B format: op with a 24-bit label', () => {
    const i = encodeBranch(D.DIF_OP_BLEU, 0xabcdef);
    expect(i).toBe(0x1babcdef);
    expect(difOp(i)).toBe(D.DIF_OP_BLEU);
    expect(difLabel(i)).toBe(0xabcdef);
    expect(() => encodeBranch(D.DIF_OP_BA, 0x1000000)).toThrow(RangeError);
  });

  it('W format: SETX, SETS, variables, CALL, XLATE with a 16-bit index', () => {
    const setx = encodeSetx(0x1234, 5);
    expect(setx).toBe(0x25123405);
    expect(difIndex(setx)).toBe(0x1234);
    expect(difRd(setx)).toBe(5);
    expect(encodeSets(0xffff, 1)).toBe(0x26ffff01);
    expect(encodeLdv(D.DIF_OP_LDGS, D.DIF_VAR_EXECNAME, 2)).toBe(0x29011802);
    expect(encodeLdv(D.DIF_OP_LDTAA, 0x501, 2)).toBe(0x35050102);
    expect(encodeStv(D.DIF_OP_STGS, 0x500, 3)).toBe(0x2a050003);
    expect(encodeStv(D.DIF_OP_STLS, 0x502, 3)).toBe(0x39050203);
    expect(encodeCall(D.DIF_SUBR_STRLEN, 1)).toBe(0x2f000c01);
    expect(encodeXlate(D.DIF_OP_XLATE, 7, 1)).toBe(0x4e000701);
    expect(() => encodeSetx(0x10000, 1)).toThrow(RangeError);
  });

  it('array loads keep the variable in the r1 field; tuple pushes the type', () => {
    const lda = encodeLda(D.DIF_OP_LDGA, D.DIF_VAR_ARGS, 1, 2);
    expect(lda).toBe(0x28000102);
    expect([difR1(lda), difR2(lda), difRd(lda)]).toEqual([0, 1, 2]);
    expect(() => encodeLda(D.DIF_OP_LDTA, 0x100, 1, 2)).toThrow(RangeError);
    const pushtr = encodePushts(D.DIF_OP_PUSHTR, D.DIF_TYPE_STRING, 2, 3);
    expect(pushtr).toBe(0x30010203);
    expect(difType(pushtr)).toBe(D.DIF_TYPE_STRING);
    expect(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, 3)).toBe(0x31000003);
  });

  it('refuses fields that do not fit', () => {
    expect(() => encodeR(D.DIF_OP_ADD, 256, 0, 0)).toThrow(/r1 256/);
    expect(() => encodeR(D.DIF_OP_ADD, 0, -1, 0)).toThrow(RangeError);
    expect(() => encodeR(256, 0, 0, 0)).toThrow(/opcode/);
    expect(() => encodeCall(0x10000, 1)).toThrow(RangeError);
  });
});

describe('DifBuilder', () => {
  it('patches forward branches when their labels are placed', () => {
    const b = new DifBuilder();
    const skip = b.newLabel();
    const end = b.newLabel();
    b.emit(encodeTst(1)); // 0
    b.branch(D.DIF_OP_BE, skip); // 1
    b.branch(D.DIF_OP_BA, end); // 2
    b.emit(encodeMov(1, 2)); // 3
    b.placeLabel(skip);
    b.emit(encodeMov(2, 3)); // 4
    b.placeLabel(end);
    b.emit(encodeRet(3)); // 5
    const d = b.finish(INT64);
    expect(Array.from(d.insns)).toEqual([
      0x10010000,
      encodeBranch(D.DIF_OP_BE, 4),
      encodeBranch(D.DIF_OP_BA, 5),
      0x0e010002,
      0x0e020003,
      0x23000003,
    ]);
  });

  it('refuses backward branches, unplaced labels and a missing ret', () => {
    const b = new DifBuilder();
    const l = b.newLabel();
    b.placeLabel(l);
    b.emit(encodeNop());
    expect(() => b.branch(D.DIF_OP_BA, l)).toThrow(/backward/);
    expect(() => b.emit(encodeBranch(D.DIF_OP_BA, 0))).toThrow(/branch\(/);
    expect(() => b.placeLabel(l)).toThrow(/twice/);

    const c = new DifBuilder();
    c.branch(D.DIF_OP_BA, c.newLabel());
    c.emit(encodeRet(0));
    expect(() => c.finish(INT64)).toThrow(/never placed/);

    const e = new DifBuilder();
    e.emit(encodeNop());
    expect(() => e.finish(INT64)).toThrow(/ret/);
  });

  it('interns integers and strings once each', () => {
    const b = new DifBuilder();
    expect(b.integer(42n)).toBe(0);
    expect(b.integer(-1n)).toBe(1);
    expect(b.integer(42n)).toBe(0);
    expect(b.integer(0xffffffffffffffffn)).toBe(1); // -1 and 2^64-1 are the same 64-bit word
    expect(b.string('hello')).toBe(0);
    expect(b.string('')).toBe(6);
    expect(b.string('hello')).toBe(0);
    expect(b.string('wörld')).toBe(7);
    b.setx(42n, 1);
    b.sets('hello', 2);
    b.emit(encodeRet(1));
    const d = b.finish(INT64);
    expect(d.inttab).toEqual([42n, 0xffffffffffffffffn]);
    expect(d.strtab).toEqual(Buffer.from('hello\0\0wörld\0', 'utf8'));
    expect(Array.from(d.insns)).toEqual([0x25000001, 0x26000002, 0x23000001]);
  });

  it('collects variables, merging their flags, and puts their names in the string table', () => {
    const b = new DifBuilder();
    const x = { name: 'x', id: 0x500, kind: D.DIFV_KIND_SCALAR, scope: D.DIFV_SCOPE_GLOBAL, type: INT64 };
    expect(b.variable({ ...x, flags: D.DIFV_F_REF })).toBe(0);
    expect(b.variable({ ...x, flags: D.DIFV_F_MOD })).toBe(0);
    expect(b.variable({ ...x, name: 'ts', scope: D.DIFV_SCOPE_THREAD, flags: D.DIFV_F_MOD })).toBe(1);
    expect(() => b.variable({ ...x, name: 'y', flags: 0 })).toThrow(/both/);
    b.emit(encodeRet(0));
    const d = b.finish(INT64);
    expect(d.vartab.map((v) => [v.name, v.flags])).toEqual([
      ['x', D.DIFV_F_REF | D.DIFV_F_MOD],
      ['ts', D.DIFV_F_MOD],
    ]);
    expect(d.strtab.toString()).toBe('x\0ts\0');
  });
});

describe('DIF disassembly (dtrace -S)', () => {
  it('prints a predicate as dt_dis does', () => {
    const b = new DifBuilder();
    const out = b.newLabel();
    b.emit(encodeLdv(D.DIF_OP_LDGS, D.DIF_VAR_EXECNAME, 1));
    b.sets('bash', 2);
    b.emit(encodeCmp(D.DIF_OP_SCMP, 1, 2));
    b.branch(D.DIF_OP_BNE, out);
    b.emit(encodeLdv(D.DIF_OP_LDGS, 0x500, 1));
    b.setx(42n, 2);
    b.emit(encodeCmp(D.DIF_OP_CMP, 1, 2));
    b.emit(encodeCall(D.DIF_SUBR_STRLEN, 3));
    b.emit(encodeStv(D.DIF_OP_STTS, 0x501, 3));
    b.placeLabel(out);
    b.emit(encodeRet(1));
    b.variable({ name: 'x', id: 0x500, kind: D.DIFV_KIND_SCALAR, scope: D.DIFV_SCOPE_GLOBAL, flags: D.DIFV_F_REF, type: INT64 });
    b.variable({
      name: 'self_ts_with_a_long_name',
      id: 0x501,
      kind: D.DIFV_KIND_SCALAR,
      scope: D.DIFV_SCOPE_THREAD,
      flags: D.DIFV_F_REF | D.DIFV_F_MOD,
      type: STRING,
    });
    const d = b.finish(INT32);

    expect(disassembleDifo(d, '0x8047a10')).toBe(
      [
        '',
        'DIFO 0x8047a10 returns D type (integer) (size 4)',
        'OFF OPCODE      INSTRUCTION',
        '00: 29011801    ldgs DT_VAR(280), %r1',
        '01: 26000002    sets DT_STRING[0], %r2\t\t! "bash"',
        '02: 27010200    scmp %r1, %r2',
        '03: 13000009    bne  9',
        '04: 29050001    ldgs DT_VAR(1280), %r1\t\t! DT_VAR(1280) = "x"',
        '05: 25000002    setx DT_INTEGER[0], %r2\t\t! 0x2a',
        '06: 0f010200    cmp  %r1, %r2',
        '07: 2f000c03    call DIF_SUBR(12), %r3\t\t! strlen',
        '08: 2d050103    stts %r3, DT_VAR(1281)\t\t! DT_VAR(1281) = "self_ts_with_a_long_name"',
        '09: 23000001    ret  %r1',
        '',
        'NAME             ID   KND SCP FLAG TYPE',
        'x                500  scl glb r    D type (integer) (size 8)',
        'self_ts_with_a_long_name 501  scl tls r/w  string (unknown) by ref (size 256)',
        '',
      ].join('\n'),
    );
  });

  it('prints every operand form', () => {
    const d: Difo = {
      insns: new Uint32Array(),
      strtab: Buffer.alloc(0),
      inttab: [0xfffffffffffffff6n],
      vartab: [],
      rtype: INT64,
    };
    const text = (i: number): string => disassembleInstruction(d, i);
    expect(text(encodeR(D.DIF_OP_SDIV, 1, 2, 3))).toBe('sdiv %r1, %r2, %r3');
    expect(text(encodeR(D.DIF_OP_OR, 1, 2, 3))).toBe('or   %r1, %r2, %r3');
    expect(text(encodeNot(1, 2))).toBe('not  %r1, %r2');
    expect(text(encodeTst(4))).toBe('tst  %r4');
    expect(text(encodeLoad(D.DIF_OP_LDSB, 1, 2))).toBe('ldsb [%r1], %r2');
    expect(text(encodeLoad(D.DIF_OP_ULDUW, 1, 2))).toBe('ulduw [%r1], %r2');
    expect(text(encodeStore(D.DIF_OP_STB, 1, 2))).toBe('stb  %r1, [%r2]');
    expect(text(encodeSetx(0, 1))).toBe('setx DT_INTEGER[0], %r1\t\t! 0xfffffffffffffff6');
    expect(text(encodeSetx(3, 1))).toBe('setx DT_INTEGER[3], %r1');
    expect(text(encodeSets(9, 1))).toBe('sets DT_STRING[9], %r1');
    expect(text(encodeLda(D.DIF_OP_LDGA, D.DIF_VAR_ARGS, 1, 2))).toBe('ldga DT_VAR(0), %r1, %r2');
    expect(text(encodeLdv(D.DIF_OP_LDGAA, 0x502, 2))).toBe('ldgaa DT_VAR(1282), %r2');
    expect(text(encodeStv(D.DIF_OP_STTAA, 0x502, 2))).toBe('sttaa %r2, DT_VAR(1282)');
    expect(text(encodePushts(D.DIF_OP_PUSHTR, D.DIF_TYPE_STRING, 2, 3))).toBe(
      'pushtr DT_TYPE(1), %r2, %r3\t! DT_TYPE(1) = string',
    );
    expect(text(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, 3))).toBe(
      'pushtv DT_TYPE(0), %r3\t\t! DT_TYPE(0) = D type',
    );
    expect(text(encodePushts(D.DIF_OP_PUSHTV, 7, 0, 3))).toBe('pushtv DT_TYPE(7), %r3');
    expect(text(encodeCall(200, 1))).toBe('call DIF_SUBR(200), %r1\t\t! unknown');
    expect(text(encodeXlate(D.DIF_OP_XLARG, 2, 1))).toBe('xlarg DT_XLREF[2], %r1');
    expect(text(encodeNop())).toBe('nop');
    expect(text(encodePopts())).toBe('popts');
    expect(text(encodeFlushts())).toBe('flushts');
    expect(text(0)).toBe('(illegal opcode)');
    expect(text(0x50000000)).toBe('(illegal opcode)');
  });

  it('prints types and a stable tag when no title is given', () => {
    expect(difTypeString(INT64)).toBe('D type (integer) (size 8)');
    expect(difTypeString({ kind: 0, ckind: D.CTF_K_POINTER, flags: 0, size: 8 })).toBe('D type (pointer) (size 8)');
    expect(difTypeString({ kind: 0, ckind: D.CTF_K_STRUCT, flags: D.DIF_TF_BYUREF, size: 24 })).toBe(
      'D type (struct) by user ref (size 24)',
    );
    expect(difTypeString({ kind: 5, ckind: 40, flags: 0, size: 1 })).toBe('0x5 (0x28) (size 1)');
    const b = new DifBuilder();
    b.emit(encodeRet(0));
    const d = b.finish(INT64);
    const first = disassembleDifo(d).split('\n')[1]!;
    expect(first).toMatch(/^DIFO 0x[0-9a-f]+ returns D type \(integer\) \(size 8\)$/);
    expect(disassembleDifo(d).split('\n')[1]).toBe(first);
    expect(disassembleDifo(d)).not.toContain('NAME');
  });
});

describe('DifBuilder.patch', () => {
  it('replaces an instruction already emitted (a move whose target is known later) but not a branch', () => {
    const b = new DifBuilder();
    const at = b.emit(encodeMov(1, 1));
    b.emit(encodeRet(2));
    b.patch(at, encodeMov(1, 2));
    expect(Array.from(b.finish(INT64).insns)).toEqual([encodeMov(1, 2), encodeRet(2)]);
    const c = new DifBuilder();
    const m = c.emit(encodeMov(1, 1));
    expect(() => c.patch(m, encodeBranch(D.DIF_OP_BA, 0))).toThrow(/labels/);
    expect(() => c.patch(5, encodeMov(1, 2))).toThrow(/not emitted/);
  });
});
