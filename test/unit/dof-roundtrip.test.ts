// DOF round trip over the whole end-to-end corpus: every corpus program that compiles is written as
// DOF and read back, and the decoded program must be the compiled one -- ECBs, probe descriptions,
// predicates, actions (kind, argument, tuple count, format strings, aggregation ids and names),
// every DIF object (instructions, integer, string and variable tables, return type) and options.
// Then damaged DOF: truncations, flipped bytes and bad header fields get a "DOF: " error, never
// another exception.
import { describe, expect, test } from 'vitest';
import { compileCorpus, NOT_COMPILING } from '../helpers/corpus.js';
import { writeDof } from '../../src/dof/writer.js';
import { readDof } from '../../src/dof/reader.js';
import { validateDifo } from '../../src/dif/validate.js';
import type { Program } from '../../src/dof/program.js';
import type { Difo } from '../../src/dif/difo.js';
import { dumpDof } from '../../src/dof/dump.js';
import { dofdumpMain } from '../../src/cli/dofdump.js';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { rng } from '../helpers/rng.js';


/** A DIF object as plain data, so that a difference names the field that differs. */
function plainDifo(d: Difo | null) {
  if (d === null) return null;
  return {
    insns: [...d.insns].map((i) => i.toString(16).padStart(8, '0')),
    inttab: d.inttab.map(String),
    strtab: d.strtab.toString('latin1').split('\0'),
    vartab: d.vartab,
    rtype: d.rtype,
  };
}

function plain(p: Program) {
  return {
    options: [...p.options].sort(),
    ecbs: p.ecbs.map((e) => ({
      probe: e.probe,
      uarg: String(e.uarg),
      predicate: plainDifo(e.predicate),
      actions: e.actions.map((a) => ({
        kind: a.kind, ntuple: a.ntuple, arg: String(a.arg), uarg: String(a.uarg),
        format: a.format, aggName: a.aggName, difo: plainDifo(a.difo),
      })),
    })),
  };
}

const all = compileCorpus();
const compiled = new Map<string, Program>();
for (const [f, c] of all) if ('program' in c) compiled.set(f, c.program);

describe('DOF round trip of the end-to-end corpus', () => {
  test('every corpus case compiles but the negative cases named in test/helpers/corpus.ts', () => {
    const failed = [...all].flatMap(([f, c]) => ('error' in c ? [`${f}: ${c.error}`] : []));
    expect(failed.map((l) => l.slice(0, l.indexOf(':')))).toEqual([...NOT_COMPILING].sort());
    expect(compiled.size).toBe(all.size - NOT_COMPILING.length);
  });

  // (Was in machine.test.ts, which compiled the whole corpus a second time for it.)
  test('every DIF object the corpus compiles to passes the kernel\'s load-time checks', () => {
    let difos = 0;
    for (const [f, program] of compiled) {
      for (const ecb of program.ecbs) {
        for (const difo of [ecb.predicate, ...ecb.actions.map((a) => a.difo)]) {
          if (!difo) continue;
          difos++;
          expect(validateDifo(difo), f).toEqual([]);
        }
      }
    }
    expect(difos).toBeGreaterThan(100);
  });
  for (const [file, program] of compiled) {
    test(file, () => {
      const dof = writeDof(program);
      const back = readDof(dof);
      expect(plain(back)).toEqual(plain(program));
      // Writing the decoded program again gives the same bytes.
      expect(writeDof(back).equals(dof)).toBe(true);
    });
  }
});


/** Read damaged DOF: it may decode (the damage hit padding or a value) or fail with "DOF: ...". */
function readDamaged(buf: Buffer): void {
  try {
    readDof(buf);
  } catch (e) {
    expect(e).toBeInstanceOf(Error);
    expect((e as Error).message).toMatch(/^DOF: /);
  }
}

describe('damaged DOF gets a clear error, never a crash', () => {
  const samples = [...compiled.values()].slice(0, 40).map((p) => writeDof(p));

  test('every truncation of a DOF file is refused', () => {
    for (const dof of samples.slice(0, 8)) {
      for (let len = 0; len < dof.length; len += 1 + Math.floor(len / 64)) {
        expect(() => readDof(dof.subarray(0, len))).toThrow(/^DOF: /);
      }
    }
  });

  test('header damage is named', () => {
    const dof = samples[0]!;
    const with1 = (at: number, v: number) => {
      const b = Buffer.from(dof);
      b[at] = v;
      return b;
    };
    expect(() => readDof(with1(0, 0))).toThrow(/^DOF: .*magic/i);
    expect(() => readDof(with1(4, 9))).toThrow(/^DOF: .*model/i);
    expect(() => readDof(with1(5, 2))).toThrow(/^DOF: .*encoding/i);
    expect(() => readDof(with1(6, 77))).toThrow(/^DOF: .*version/i);
    expect(() => readDof(Buffer.alloc(0))).toThrow(/^DOF: /);
  });

  test('thousands of random byte flips decode or fail with a DOF error', () => {
    const rand = rng(0xd0f);
    for (let n = 0; n < 4000; n++) {
      const b = Buffer.from(samples[n % samples.length]!);
      const flips = 1 + Math.floor(rand() * 4);
      for (let k = 0; k < flips; k++) {
        const at = Math.floor(rand() * b.length);
        b[at] = rand() < 0.5 ? Math.floor(rand() * 256) : b[at]! ^ (1 << Math.floor(rand() * 8));
      }
      readDamaged(b);
    }
  });

  test('random 32-bit and 64-bit fields set to extreme values decode or fail with a DOF error', () => {
    const rand = rng(42);
    const extremes = [0, 1, 0x7fffffff, 0xffffffff, 0x80000000, 0xfffffffe];
    for (let n = 0; n < 3000; n++) {
      const b = Buffer.from(samples[n % samples.length]!);
      const at = Math.floor(rand() * (b.length - 8)) & ~3;
      const v = extremes[Math.floor(rand() * extremes.length)]!;
      if (rand() < 0.5) b.writeUInt32LE(v, at);
      else b.writeBigUInt64LE(BigInt(v) << BigInt(Math.floor(rand() * 33)), at & ~7);
      readDamaged(b);
    }
  });
});

describe('dtrace-dofdump', () => {
  const run = (argv: string[]) => {
    let out = '';
    let err = '';
    const status = dofdumpMain(argv, { out: (t) => { out += t; }, err: (t) => { err += t; } });
    return { out, err, status };
  };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dofdump-'));

  test('compiles a D program, writes its DOF with -o and dumps it', () => {
    const file = path.join(dir, 'p.dof');
    const r = run(['-q', '-o', file, '-n', 'BEGIN /1/ { @c[probename] = count(); printf("%d\\n", 1 + 2); exit(0); }']);
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    expect(r.out).toContain('dofh_ident.id_magic = 0x7f, D, O, F\n');
    expect(r.out).toContain('dofh_ident.id_model = LP64\n');
    expect(r.out).toMatch(/^ *\d+ ECBDESC /m);
    expect(r.out).toContain('ECB 0: :::BEGIN\n');
    expect(r.out).toContain('  predicate:\n');
    expect(r.out).toContain('action 1: count (kind 0x701)');
    expect(r.out).toContain('aggregation = @c');
    expect(r.out).toContain('format = "%d\\n"');
    expect(r.out).toMatch(/add +%r1, %r2, %r\d/);
    // The file it wrote dumps the same way.
    const again = run([file]);
    expect(again.status).toBe(0);
    expect(again.out).toBe(r.out);
  });

  test('a damaged file is refused with the reader\'s message', () => {
    const good = path.join(dir, 'good.dof');
    expect(run(['-o', good, '-n', 'BEGIN { exit(0); }']).status).toBe(0);
    const bad = path.join(dir, 'bad.dof');
    writeFileSync(bad, readFileSync(good).subarray(0, 100));
    const r = run([bad]);
    expect(r.status).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^dtrace-dofdump: .*bad\.dof: DOF: file is truncated/);
    expect(run([path.join(dir, 'missing.dof')]).err).toMatch(/failed to open .*missing\.dof: No such file or directory/);
  });

  test('a D program that does not compile gets dtrace\'s message', () => {
    const r = run(['-n', 'BEGIN { x = ; }']);
    expect(r.status).toBe(1);
    expect(r.err).toMatch(/^dtrace: invalid probe specifier BEGIN \{ x = ; \}: syntax error near ";"/);
  });

  test('dumps every corpus program that compiles', () => {
    for (const p of compiled.values()) expect(dumpDof(writeDof(p))).toContain('ECB 0: ');
  });
});
