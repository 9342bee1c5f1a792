import { describe, expect, it } from 'vitest';
import * as D from '../../src/dif/constants.js';
import {
  DifBuilder,
  encodeBranch,
  encodeCall,
  encodeCmp,
  encodeLda,
  encodeLdv,
  encodePushts,
  encodeRet,
  encodeStv,
} from '../../src/dif/builder.js';
import * as F from '../../src/dof/constants.js';
import { readDof } from '../../src/dof/reader.js';
import { validateDifo } from '../../src/dif/validate.js';
import { writeDof } from '../../src/dof/writer.js';
import type { ActionDescription, Program, UsdtProvider } from '../../src/dof/program.js';
import type { DifType, Difo } from '../../src/dif/difo.js';
import { dumpDof } from '../../src/dof/dump.js';
import { rng } from '../helpers/rng.js';

const INT64: DifType = { kind: D.DIF_TYPE_CTF, ckind: D.CTF_K_INTEGER, flags: 0, size: 8 };
const INT32: DifType = { kind: D.DIF_TYPE_CTF, ckind: D.CTF_K_INTEGER, flags: 0, size: 4 };
const STRING: DifType = { kind: D.DIF_TYPE_STRING, ckind: D.CTF_K_UNKNOWN, flags: D.DIF_TF_BYREF, size: 256 };

/** A DIF object returning a built-in variable. */
function loadVar(id: number, rtype: DifType): Difo {
  const b = new DifBuilder();
  b.emit(encodeLdv(D.DIF_OP_LDGS, id, 1));
  b.emit(encodeRet(1));
  return b.finish(rtype);
}

function constant(v: bigint): Difo {
  const b = new DifBuilder();
  b.setx(v, 1);
  b.emit(encodeRet(1));
  return b.finish(INT32);
}

/** /pid == 1234 && self->ts/ with a thread-local in the variable table. */
function predicate(): Difo {
  const b = new DifBuilder();
  const no = b.newLabel();
  b.emit(encodeLdv(D.DIF_OP_LDGS, D.DIF_VAR_PID, 1));
  b.setx(1234n, 2);
  b.emit(encodeCmp(D.DIF_OP_CMP, 1, 2));
  b.branch(D.DIF_OP_BNE, no);
  b.emit(encodeLdv(D.DIF_OP_LDTS, 0x500, 1));
  b.placeLabel(no);
  b.emit(encodeRet(1));
  b.variable({ name: 'ts', id: 0x500, kind: D.DIFV_KIND_SCALAR, scope: D.DIFV_SCOPE_THREAD, flags: D.DIFV_F_REF, type: INT64 });
  return b.finish(INT32);
}

/** A string expression: strjoin(execname, "!") through the tuple stack, stored in a global. */
function joined(): Difo {
  const b = new DifBuilder();
  b.emit(encodeLdv(D.DIF_OP_LDGS, D.DIF_VAR_EXECNAME, 1));
  b.emit(encodePushts(D.DIF_OP_PUSHTR, D.DIF_TYPE_STRING, 0, 1));
  b.sets('!', 2);
  b.emit(encodePushts(D.DIF_OP_PUSHTR, D.DIF_TYPE_STRING, 0, 2));
  b.emit(encodeCall(D.DIF_SUBR_STRJOIN, 3));
  b.emit(encodeStv(D.DIF_OP_STGS, 0x501, 3));
  b.emit(encodeLda(D.DIF_OP_LDGA, D.DIF_VAR_ARGS, 0, 4));
  b.emit(encodeRet(3));
  b.variable({ name: 'last', id: 0x501, kind: D.DIFV_KIND_SCALAR, scope: D.DIFV_SCOPE_GLOBAL, flags: D.DIFV_F_MOD, type: STRING });
  return b.finish(STRING);
}

function act(kind: number, difo: Difo | null, extra: Partial<ActionDescription> = {}): ActionDescription {
  return { kind, difo, ntuple: 0, arg: 0n, uarg: 0n, ...extra };
}

function sampleProgram(): Program {
  return {
    ecbs: [
      {
        probe: { instance: 'host', provider: 'dtrace', module: '', function: '', name: 'BEGIN', id: 0 },
        predicate: null,
        actions: [
          act(D.DTRACEACT_PRINTF, loadVar(D.DIF_VAR_EXECNAME, STRING), { format: 'hello from %s\n' }),
          act(D.DTRACEACT_DIFEXPR, loadVar(D.DIF_VAR_TIMESTAMP, INT64)),
          act(D.DTRACEACT_PRINTF, null, { format: '' }),
        ],
        uarg: 0n,
      },
      {
        probe: { instance: 'host', provider: 'syscall', module: 'vmlinux', function: 'read', name: 'entry', id: 0 },
        predicate: predicate(),
        actions: [
          // @counts[execname, pid] = count();
          act(D.DTRACEACT_DIFEXPR, loadVar(D.DIF_VAR_EXECNAME, STRING)),
          act(D.DTRACEACT_DIFEXPR, loadVar(D.DIF_VAR_PID, INT32)),
          act(D.DTRACEAGG_COUNT, null, { ntuple: 2, aggName: 'counts', uarg: 1n }),
          // @lat = quantize(arg0); @ = sum(arg1); @lq = lquantize(arg2, -10, 90, 5)
          act(D.DTRACEAGG_QUANTIZE, loadVar(D.DIF_VAR_ARG0, INT64), { aggName: 'lat', uarg: 2n }),
          act(D.DTRACEAGG_SUM, loadVar(D.DIF_VAR_ARG1, INT64), { aggName: '', uarg: 3n }),
          act(D.DTRACEAGG_LQUANTIZE, loadVar(D.DIF_VAR_ARG2, INT64), {
            aggName: 'lq',
            uarg: 4n,
            arg: D.packLquantizeArg({ base: -10, step: 5, levels: 20 }),
          }),
          // the same aggregation again, from another statement
          act(D.DTRACEAGG_QUANTIZE, loadVar(D.DIF_VAR_ARG3, INT64), { aggName: 'lat', uarg: 2n }),
          act(D.DTRACEACT_DIFEXPR, joined()),
        ],
        uarg: 1n,
      },
      {
        probe: { instance: 'vm1', provider: 'profile', module: '', function: '', name: 'tick-1s', id: 77 },
        predicate: null,
        actions: [
          act(D.DTRACEACT_PRINTA, null, { format: '%-20s %@8d\n', uarg: 1n }),
          act(D.DTRACEACT_PRINTA, null, { arg: 5n, uarg: 2n }),
          act(D.DTRACEACT_USTACK, null, { arg: D.packUstackArg(20, 0) }),
          act(D.DTRACEACT_EXIT, constant(0n)),
        ],
        uarg: 0xfffffffffffffffen,
      },
    ],
    options: new Map([
      ['quiet', ''],
      ['bufsize', '4m'],
      ['defaultargs', ''],
      ['strsize', '256'],
    ]),
  };
}

interface Sec {
  type: number;
  align: number;
  flags: number;
  entsize: number;
  offset: number;
  size: number;
}

function sectionsOf(dof: Buffer): Sec[] {
  const n = dof.readUInt32LE(28);
  const secoff = Number(dof.readBigUInt64LE(32));
  return Array.from({ length: n }, (_, i) => {
    const h = secoff + i * 32;
    return {
      type: dof.readUInt32LE(h),
      align: dof.readUInt32LE(h + 4),
      flags: dof.readUInt32LE(h + 8),
      entsize: dof.readUInt32LE(h + 12),
      offset: Number(dof.readBigUInt64LE(h + 16)),
      size: Number(dof.readBigUInt64LE(h + 24)),
    };
  });
}

function cstr(dof: Buffer, strtab: Sec, off: number): string {
  const start = strtab.offset + off;
  return dof.toString('utf8', start, dof.indexOf(0, start));
}


describe('DOF writer', () => {
  it('writes the DOF header a DTrace kernel expects', () => {
    const dof = writeDof(sampleProgram());
    expect([...dof.subarray(0, 16)]).toEqual([0x7f, 0x44, 0x4f, 0x46, 2, 1, 1, 2, 8, 8, 0, 0, 0, 0, 0, 0]);
    expect(dof.readUInt32LE(16)).toBe(0); // flags
    expect(dof.readUInt32LE(20)).toBe(64); // header size
    expect(dof.readUInt32LE(24)).toBe(32); // section header size
    expect(dof.readBigUInt64LE(32)).toBe(64n); // section headers follow the header
    expect(dof.readBigUInt64LE(40)).toBe(BigInt(dof.length)); // loadable size
    expect(dof.readBigUInt64LE(48)).toBe(BigInt(dof.length)); // file size
    for (const s of sectionsOf(dof)) {
      expect(s.flags).toBe(F.DOF_SECF_LOAD);
      expect(s.offset % s.align).toBe(0);
      expect(s.offset + s.size).toBeLessThanOrEqual(dof.length);
    }
  });

  it('lays out ECB, probe, action and DIF object sections as libdtrace does', () => {
    const dof = writeDof(sampleProgram());
    const secs = sectionsOf(dof);
    const strtab = secs[0]!;
    expect(strtab.type).toBe(F.DOF_SECT_STRTAB);
    expect(dof[strtab.offset]).toBe(0); // "" at offset 0

    const ecbs = secs.filter((s) => s.type === F.DOF_SECT_ECBDESC);
    expect(ecbs).toHaveLength(3);
    for (const e of ecbs) expect([e.align, e.size]).toEqual([8, 24]);

    // The second ECB: probe description strings, predicate, actions.
    const e1 = ecbs[1]!;
    const probe = secs[dof.readUInt32LE(e1.offset)]!;
    expect([probe.type, probe.align, probe.size]).toEqual([F.DOF_SECT_PROBEDESC, 4, 24]);
    expect(dof.readUInt32LE(probe.offset)).toBe(0);
    expect(cstr(dof, strtab, dof.readUInt32LE(probe.offset + 12))).toBe('read');
    const pred = secs[dof.readUInt32LE(e1.offset + 4)]!;
    expect(pred.type).toBe(F.DOF_SECT_DIFOHDR);
    const links = Array.from({ length: (pred.size - 8) / 4 }, (_, i) => secs[dof.readUInt32LE(pred.offset + 8 + 4 * i)]!.type);
    expect(links).toEqual([F.DOF_SECT_DIF, F.DOF_SECT_INTTAB, F.DOF_SECT_STRTAB, F.DOF_SECT_VARTAB]);
    expect(dof.readBigUInt64LE(e1.offset + 16)).toBe(1n);

    // Aggregating actions: the name in the string table, the id beside its offset in dofa_uarg.
    const acts = secs[dof.readUInt32LE(e1.offset + 8)]!;
    expect([acts.type, acts.align, acts.entsize, acts.size]).toEqual([F.DOF_SECT_ACTDESC, 8, 32, 8 * 32]);
    const count = acts.offset + 2 * 32;
    expect(dof.readUInt32LE(count)).toBe(F.DOF_SECIDX_NONE);
    expect(dof.readUInt32LE(count + 4)).toBe(0);
    expect(dof.readUInt32LE(count + 8)).toBe(D.DTRACEAGG_COUNT);
    expect(dof.readUInt32LE(count + 12)).toBe(2);
    const uarg = dof.readBigUInt64LE(count + 24);
    expect(uarg >> 32n).toBe(1n);
    expect(cstr(dof, strtab, Number(uarg & 0xffffffffn))).toBe('counts');

    // printf: the format's offset in dofa_arg, never 0 (a kernel refuses that as empty).
    const e0acts = secs[dof.readUInt32LE(ecbs[0]!.offset + 8)]!;
    expect(dof.readUInt32LE(e0acts.offset + 4)).toBe(0);
    expect(cstr(dof, strtab, Number(dof.readBigUInt64LE(e0acts.offset + 16)))).toBe('hello from %s\n');
    expect(dof.readBigUInt64LE(e0acts.offset + 2 * 32 + 16)).not.toBe(0n);

    // The instance element makes the probe description 28 bytes.
    const p2 = secs[dof.readUInt32LE(ecbs[2]!.offset)]!;
    expect(p2.size).toBe(28);
    expect(cstr(dof, strtab, dof.readUInt32LE(p2.offset + 24))).toBe('vm1');
    expect(dof.readUInt32LE(p2.offset + 20)).toBe(77);

    const opts = secs.filter((s) => s.type === F.DOF_SECT_OPTDESC);
    expect(opts).toHaveLength(1);
    expect([opts[0]!.align, opts[0]!.entsize, opts[0]!.size]).toEqual([8, 24, 4 * 24]);
    expect(dof.readUInt32LE(opts[0]!.offset)).toBe(F.DTRACEOPT_QUIET);
    expect(dof.readUInt32LE(opts[0]!.offset + 2 * 24)).toBe(F.DOF_OPTION_LIBRARY);
  });

  it('refuses what DOF cannot carry, naming the ECB and action', () => {
    const withAction = (a: ActionDescription): Program => ({
      ecbs: [{ probe: sampleProgram().ecbs[0]!.probe, predicate: null, actions: [a], uarg: 0n }],
      options: new Map(),
    });
    // (A DIF expression may carry one: print() puts its value's type there.)
    expect(() => writeDof(withAction(act(D.DTRACEACT_EXIT, null, { format: 'x' })))).toThrow(
      /ECB 0, action 0: action kind 0x2 takes no format string/,
    );
    expect(() => writeDof(withAction(act(D.DTRACEACT_PRINTF, null, { aggName: 'a' })))).toThrow(/not an aggregating/);
    expect(() => writeDof(withAction(act(D.DTRACEACT_PRINTF, null, { format: 'x', arg: 3n })))).toThrow(/arg must be 0/);
    expect(() => writeDof(withAction(act(D.DTRACEAGG_COUNT, null, { aggName: 'a', uarg: 1n << 32n })))).toThrow(
      /aggregation id/,
    );
    const empty: Difo = { insns: new Uint32Array(), strtab: Buffer.alloc(0), inttab: [], vartab: [], rtype: INT64 };
    expect(() => writeDof(withAction(act(D.DTRACEACT_DIFEXPR, empty)))).toThrow(/no DIF instructions/);
  });
});

describe('DOF reader', () => {
  it('round-trips a program: ECBs, predicate, printf, trace, exit, aggregations, strings, options', () => {
    const program = sampleProgram();
    const back = readDof(writeDof(program));
    expect(back).toEqual(program);
    // Spot checks, beyond deep equality.
    const aggs = back.ecbs[1]!.actions.filter((a) => D.isAggregatingAction(a.kind));
    expect(aggs.map((a) => [a.aggName, a.uarg])).toEqual([
      ['counts', 1n],
      ['lat', 2n],
      ['', 3n],
      ['lq', 4n],
      ['lat', 2n],
    ]);
    expect(D.unpackLquantizeArg(aggs[3]!.arg)).toEqual({ base: -10, step: 5, levels: 20 });
    expect(back.ecbs[0]!.actions[0]!.format).toBe('hello from %s\n');
    expect(back.ecbs[0]!.actions[2]!.format).toBe('');
    expect(back.ecbs[2]!.probe.instance).toBe('vm1');
    expect(back.ecbs[2]!.uarg).toBe(0xfffffffffffffffen);
    expect([...back.options]).toEqual([...program.options]);
    expect(back.ecbs[1]!.predicate!.vartab[0]!.name).toBe('ts');
  });

  it('round-trips an empty program', () => {
    const empty: Program = { ecbs: [], options: new Map() };
    expect(readDof(writeDof(empty))).toEqual(empty);
  });

  it('reads integer options as a kernel-style OPTDESC carries them', () => {
    // Header, one section header, one 16-byte dof_optdesc_t: quiet = 0 with no string table.
    const dof = Buffer.alloc(64 + 32 + 16);
    Buffer.from([0x7f, 0x44, 0x4f, 0x46, 2, 1, 1, 2, 8, 8]).copy(dof);
    dof.writeUInt32LE(64, 20);
    dof.writeUInt32LE(32, 24);
    dof.writeUInt32LE(1, 28);
    dof.writeBigUInt64LE(64n, 32);
    dof.writeBigUInt64LE(BigInt(dof.length), 40);
    dof.writeBigUInt64LE(BigInt(dof.length), 48);
    dof.writeUInt32LE(F.DOF_SECT_OPTDESC, 64);
    dof.writeUInt32LE(8, 68);
    dof.writeUInt32LE(F.DOF_SECF_LOAD, 72);
    dof.writeUInt32LE(16, 76);
    dof.writeBigUInt64LE(96n, 80);
    dof.writeBigUInt64LE(16n, 88);
    dof.writeUInt32LE(F.DTRACEOPT_QUIET, 96);
    dof.writeUInt32LE(F.DOF_SECIDX_NONE, 100);
    dof.writeBigUInt64LE(0n, 104);
    expect(readDof(dof)).toEqual({ ecbs: [], options: new Map([['quiet', '0']]) });
  });

  it('rejects a bad header with a clear message', () => {
    const good = writeDof(sampleProgram());
    const bad = (mutate: (b: Buffer) => void): Buffer => {
      const b = Buffer.from(good);
      mutate(b);
      return b;
    };
    expect(() => readDof(Buffer.alloc(10))).toThrow('DOF: file is 10 bytes, too short for the 64-byte header');
    expect(() => readDof(bad((b) => (b[1] = 0x45)))).toThrow('DOF: bad magic number: this is not DOF');
    expect(() => readDof(bad((b) => (b[4] = 1)))).toThrow('DOF: data model 1 is not LP64 (2)');
    expect(() => readDof(bad((b) => (b[5] = 2)))).toThrow('DOF: encoding 2 is not little-endian (1)');
    expect(() => readDof(bad((b) => (b[8] = 9)))).toThrow(/integer registers/);
    expect(() => readDof(bad((b) => b.writeUInt32LE(40, 24)))).toThrow('DOF: section header size 40 is not 32');
    expect(() => readDof(good.subarray(0, good.length - 1))).toThrow(/^DOF: file is truncated/);
  });

  it('rejects sections that reach past the file or are misaligned', () => {
    const good = writeDof(sampleProgram());
    const b = Buffer.from(good);
    // Section 3's size, made larger than the file.
    b.writeBigUInt64LE(BigInt(good.length), 64 + 3 * 32 + 24);
    expect(() => readDof(b)).toThrow(/^DOF: section 3 \(\w+\) extends past end of loadable data$/);

    const c = Buffer.from(good);
    c.writeBigUInt64LE(BigInt(good.length - 1), 64 + 5 * 32 + 16);
    expect(() => readDof(c)).toThrow(/^DOF: section 5 .* extends past end/);
    c.writeBigUInt64LE(1n << 62n, 64 + 5 * 32 + 16);
    expect(() => readDof(c)).toThrow(/^DOF: section 5 offset 4611686018427387904 is impossibly large$/);

    const d = Buffer.from(good);
    const secs = sectionsOf(good);
    const ecb = secs.findIndex((s) => s.type === F.DOF_SECT_ECBDESC);
    d.writeBigUInt64LE(BigInt(secs[ecb]!.offset + 4), 64 + ecb * 32 + 16);
    expect(() => readDof(d)).toThrow(`DOF: section ${ecb} (ECBDESC) at offset ${secs[ecb]!.offset + 4} is not 8-byte aligned`);

    const e = Buffer.from(good);
    e[secs[0]!.offset + secs[0]!.size - 1] = 0x41;
    expect(() => readDof(e)).toThrow('DOF: section 0: string table is not NUL-terminated');
  });

  it('rejects bad links, string offsets and DIF', () => {
    const good = writeDof(sampleProgram());
    const secs = sectionsOf(good);
    const ecb = secs.find((s) => s.type === F.DOF_SECT_ECBDESC)!;

    const a = Buffer.from(good);
    a.writeUInt32LE(9999, ecb.offset);
    expect(() => readDof(a)).toThrow(/ECB description in section \d+ links to section 9999, but there are only \d+ sections/);

    const b = Buffer.from(good);
    b.writeUInt32LE(0, ecb.offset); // section 0 is the string table
    expect(() => readDof(b)).toThrow(/links to section 0 \(STRTAB\) where PROBEDESC is expected/);

    const c = Buffer.from(good);
    const probe = secs[good.readUInt32LE(ecb.offset)]!;
    c.writeUInt32LE(secs[0]!.size + 5, probe.offset + 16);
    expect(() => readDof(c)).toThrow(/probe description in section \d+, name: string offset \d+ is past the end/);

    // Make the first DIF instruction of the printf's DIF object a branch back to itself.
    const dif = secs.find((s) => s.type === F.DOF_SECT_DIF)!;
    const d = Buffer.from(good);
    d.writeUInt32LE(encodeBranch(D.DIF_OP_BA, 0), dif.offset);
    expect(() => readDof(d)).toThrow(/DIF object in section \d+: \[0\]: backward branch to 0/);

    const e = Buffer.from(good);
    e.writeUInt32LE(0x23000009, dif.offset + 4); // ret %r9
    expect(() => readDof(e)).toThrow(/\[1\]: invalid register 9/);
  });

  it('validates DIF as the kernel does', () => {
    const d = (insns: number[], extra: Partial<Difo> = {}): Difo => ({
      insns: Uint32Array.from(insns),
      strtab: Buffer.from('a\0'),
      inttab: [1n],
      vartab: [],
      rtype: INT64,
      ...extra,
    });
    expect(validateDifo(d([encodeRet(1)]))).toEqual([]);
    expect(validateDifo(d([0x25000101, encodeRet(1)]))).toEqual(['[0]: invalid integer ref 1']);
    expect(validateDifo(d([0x26000201, encodeRet(1)]))).toEqual(['[0]: invalid string ref 2']);
    expect(validateDifo(d([0x25000000, encodeRet(1)]))).toEqual(['[0]: cannot write to %r0']);
    expect(validateDifo(d([encodeStv(D.DIF_OP_STGS, D.DIF_VAR_PID, 1), encodeRet(1)]))).toEqual([`[0]: invalid variable ${D.DIF_VAR_PID}`]);
    expect(validateDifo(d([encodeCall(D.DIF_SUBR_MAX + 1, 1), encodeRet(1)]))).toEqual([`[0]: invalid subr ${D.DIF_SUBR_MAX + 1}`]);
    expect(validateDifo(d([encodeBranch(D.DIF_OP_BA, 5), encodeRet(1)]))).toEqual(['[0]: invalid branch target 5']);
    expect(validateDifo(d([0x4e000001, encodeRet(1)]))).toEqual(['[0]: invalid opcode 78']);
    expect(validateDifo(d([0x00000000, encodeRet(1)]))).toEqual(['[0]: invalid opcode 0']);
    expect(validateDifo(d([encodeRet(1), 0x0e010002]))).toEqual(["expected 'ret' as last DIF instruction"]);
    const v = { name: 'v', id: 0x500, kind: 7, scope: 0, flags: 0, type: INT64 };
    expect(validateDifo(d([encodeRet(1)], { vartab: [v] }))).toEqual(['variable 0 (v): unknown kind 7']);
  });

  it('gives a clean error or a valid program for every truncation', () => {
    const good = writeDof(sampleProgram());
    for (let n = 0; n < good.length; n++) {
      expect(() => readDof(good.subarray(0, n))).toThrow(/^DOF: /);
    }
  });

  it('survives 2,000 random corruptions: only clean errors or valid decodes', () => {
    const good = writeDof(sampleProgram());
    const random = rng(0x5eed);
    let decoded = 0;
    let rejected = 0;
    for (let round = 0; round < 2000; round++) {
      const b = Buffer.from(good);
      const flips = 1 + Math.floor(random() * 4);
      for (let k = 0; k < flips; k++) {
        // Bias half the flips toward the header and section headers, where corruption matters most.
        const region = random() < 0.5 ? 64 + sectionsOf(good).length * 32 : b.length;
        b[Math.floor(random() * region)] = Math.floor(random() * 256);
      }
      let program: Program | undefined;
      try {
        program = readDof(b);
      } catch (e) {
        expect(e).toBeInstanceOf(Error);
        expect((e as Error).message).toMatch(/^DOF: /);
        rejected++;
        continue;
      }
      decoded++;
      // Whatever decodes is a valid program: the writer encodes it again and it reads back the same.
      expect(readDof(writeDof(program))).toEqual(program);
    }
    expect(decoded + rejected).toBe(2000);
    expect(rejected).toBeGreaterThan(0);
    expect(decoded).toBeGreaterThan(0);
  });
});

describe('DOF USDT providers', () => {
  const evolving = { name: 'Evolving', data: 'Evolving', dependency: 'Common' } as const;
  const priv = { name: 'Private', data: 'Private', dependency: 'Unknown' } as const;
  const provider = (withEnabled: boolean): UsdtProvider => ({
    name: 'myapp',
    attributes: { provider: evolving, module: priv, function: priv, name: evolving, args: evolving },
    probes: [
      {
        func: 'handle_request', name: 'request-start', addr: 0n,
        nativeTypes: ['char *', 'int'], translatedTypes: ['char *', 'int'], argMap: [0, 1],
        offsets: [0x1c, 0x80], enabledOffsets: withEnabled ? [0x10] : [],
      },
      {
        func: 'main', name: 'tick', addr: 0x401000n,
        nativeTypes: ['long'], translatedTypes: [], argMap: [], offsets: [0x4], enabledOffsets: [],
      },
      {
        // The same type twice: the types are laid out one after another, not shared.
        func: 'handle_request', name: 'pair', addr: 0n,
        nativeTypes: ['int', 'int'], translatedTypes: ['int'], argMap: [1], offsets: [0x30], enabledOffsets: [],
      },
    ],
  });

  it('round-trips providers, probes, argument mappings and offsets; version 2 only with is-enabled offsets', () => {
    for (const withEnabled of [true, false]) {
      const program: Program = { ecbs: [], options: new Map(), providers: [provider(withEnabled)] };
      const dof = writeDof(program);
      expect(readDof(dof)).toEqual(program);
      expect(dof[F.DOF_ID_VERSION]).toBe(withEnabled ? F.DOF_VERSION_2 : F.DOF_VERSION_1);
      const types = sectionsOf(dof).map((s) => s.type);
      for (const t of [F.DOF_SECT_PROVIDER, F.DOF_SECT_PROBES, F.DOF_SECT_PRARGS, F.DOF_SECT_PROFFS]) expect(types).toContain(t);
      expect(types.includes(F.DOF_SECT_PRENOFFS)).toBe(withEnabled);
    }
  });

  it('lays out dof_provider_t and dof_probe_t as the kernel reads them', () => {
    const dof = writeDof({ ecbs: [], options: new Map(), providers: [provider(true)] });
    const secs = sectionsOf(dof);
    const pv = secs.find((s) => s.type === F.DOF_SECT_PROVIDER)!;
    expect(pv.size).toBe(44);
    const probes = secs[dof.readUInt32LE(pv.offset + 4)]!;
    expect([probes.type, probes.entsize, probes.size]).toEqual([F.DOF_SECT_PROBES, 48, 3 * 48]);
    // DOF_ATTR(Evolving, Evolving, Common) for the provider's own attributes.
    expect(dof.readUInt32LE(pv.offset + 20)).toBe((5 << 24) | (5 << 16) | (5 << 8));
    // The first probe: 2 native and 2 translated arguments, 2 offsets from index 0, 1 is-enabled.
    const p0 = probes.offset;
    expect([dof[p0 + 32], dof[p0 + 33], dof.readUInt16LE(p0 + 34), dof.readUInt32LE(p0 + 28), dof.readUInt16LE(p0 + 40)]).toEqual([2, 2, 2, 0, 1]);
    // The second probe's offsets start after the first's.
    expect(dof.readUInt32LE(p0 + 48 + 28)).toBe(2);
    expect(dof.readBigUInt64LE(p0 + 48)).toBe(0x401000n);
  });

  it('refuses a probe without sites or with a mapping past its arguments', () => {
    const bad = provider(false);
    bad.probes[1]!.offsets = [];
    expect(() => writeDof({ ecbs: [], options: new Map(), providers: [bad] })).toThrow(/probe tick has no probe sites/);
    const bad2 = provider(false);
    bad2.probes[2]!.argMap = [2];
    expect(() => writeDof({ ecbs: [], options: new Map(), providers: [bad2] })).toThrow(/names a native argument/);
  });

  it('rejects corrupt provider sections with clean errors', () => {
    const good = writeDof({ ecbs: [], options: new Map(), providers: [provider(true)] });
    const secs = sectionsOf(good);
    const prargs = secs.find((s) => s.type === F.DOF_SECT_PRARGS)!;
    const b = Buffer.from(good);
    b[prargs.offset] = 9; // a mapping to native argument 9 of 2
    expect(() => readDof(b)).toThrow(/DOF: probe 0 of provider in section \d+: argument mapping names a native argument/);
    const probes = secs.find((s) => s.type === F.DOF_SECT_PROBES)!;
    const c = Buffer.from(good);
    c.writeUInt16LE(0, probes.offset + 48 + 34); // the tick probe loses its only offset
    expect(() => readDof(c)).toThrow(/zero probe and is-enabled offsets/);
    const random = rng(0xd0f);
    for (let round = 0; round < 1000; round++) {
      const x = Buffer.from(good);
      x[Math.floor(random() * x.length)] = Math.floor(random() * 256);
      try {
        readDof(x);
      } catch (e) {
        expect((e as Error).message).toMatch(/^DOF: /);
      }
    }
  });

  it('dtrace-dofdump shows the providers', () => {
    const text = dumpDof(writeDof({ ecbs: [], options: new Map(), providers: [provider(true)] }));
    expect(text).toContain('PROVIDER myapp\n  attributes: provider Evolving/Evolving/Common, module Private/Private/Unknown');
    expect(text).toContain('  probe request-start in handle_request (addr 0x0)\n    native (char *, int), translated (char *, int), mapping [0, 1]\n    offsets [0x1c, 0x80], is-enabled offsets [0x10]');
  });
});
