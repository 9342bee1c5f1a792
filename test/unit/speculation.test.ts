// Speculations: the compiler's rules and the actions it emits, the reference machine's
// speculation(), the device's record tags and the consumer holding records until commit/discard.
import { describe, expect, test } from 'vitest';
import * as D from '../../src/dif/constants.js';
import { DifMachine } from '../../src/dif/machine.js';
import { compileError, compileScript, fire } from '../helpers/dif.js';
import { Speculations } from '../../src/consumer/speculation.js';
import { SPEC_TAG, parseSpecTag, specTag } from '../../src/abi/records.js';
import type { Device } from '../../src/device/device.js';

describe('compile-time rules (dt_cc.c)', () => {
  const cases: [string, string][] = [
    ['BEGIN { printf("x"); speculate(1); }', 'D_SPEC_DREC: speculate( ) may not follow data-recording action(s)'],
    ['BEGIN { trace(1); speculate(1); }', 'D_SPEC_DREC: speculate( ) may not follow data-recording action(s)'],
    ['BEGIN { speculate(1); speculate(2); }', 'D_SPEC_SPEC: speculate( ) may not follow speculate( )'],
    ['BEGIN { commit(1); speculate(1); }', 'D_SPEC_COMM: speculate( ) may not follow commit( )'],
    ['BEGIN { commit(1); commit(2); }', 'D_COMM_COMM: commit( ) may not follow commit( )'],
    ['BEGIN { commit(1); discard(2); commit(3); commit(4); }', 'D_COMM_COMM: commit( ) may not follow commit( )'],
    ['BEGIN { commit(1); discard(2); trace(3); }', 'D_DREC_COMM: data-recording actions may not follow commit( )'],
    ['BEGIN { trace(1); commit(1); }', 'D_COMM_DREC: commit( ) may not follow data-recording action(s)'],
    ['BEGIN { commit(1); trace(1); }', 'D_DREC_COMM: data-recording actions may not follow commit( )'],
    ['BEGIN { commit(1); exit(0); }', 'D_DREC_COMM: data-recording actions may not follow commit( )'],
    ['BEGIN { commit(1); @a = count(); }', 'D_AGG_COMM: aggregating actions may not follow commit( )'],
    ['BEGIN { speculate(1); @a = count(); }', 'D_AGG_SPEC: aggregating actions may not follow speculate( )'],
    ['BEGIN { speculate(1); @a[1] = sum(2); }', 'D_AGG_SPEC: aggregating actions may not follow speculate( )'],
    ['BEGIN { @a = count(); speculate(1); }', 'D_SPEC_DREC: speculate( ) may not follow data-recording action(s)'],
    ['BEGIN { speculate(1); exit(0); }', 'D_EXIT_SPEC: exit( ) may not follow speculate( )'],
    ['BEGIN { speculate(); }', 'D_PROTO_LEN: speculate( ) prototype mismatch: 0 args passed, 1 expected'],
    ['BEGIN { commit(1, 2); }', 'D_PROTO_LEN: commit( ) prototype mismatch: 2 args passed, 1 expected'],
    ['BEGIN { discard("x"); }', 'D_PROTO_ARG: discard( ) argument #1 is incompatible with prototype:\n\tprototype: int\n\t argument: string'],
  ];
  test.each(cases)('%s', (src, message) => {
    expect(compileError(src)).toBe(message);
  });

  test('what DTrace accepts', () => {
    for (const src of [
      'BEGIN { x = 1; speculate(1); printf("%d", x); trace(2); }', // void statements may come first
      'BEGIN { speculate(1); x = 2; }',
      'BEGIN { discard(1); trace(1); }', // discard is not data-recording
      'BEGIN { trace(1); discard(1); discard(2); }',
      'BEGIN { commit(1); discard(2); }',
      // a commit after a discard, as the public suite's speculation/tst.CommitDiscard4x wants
      'BEGIN { commit(1); discard(2); commit(3); discard(4); commit(5); }',
      'BEGIN { speculate(1); commit(1); }',
      'BEGIN { commit(1); x = 1; }',
    ]) expect(() => compileScript(src), src).not.toThrow();
  });

  test('the actions carry the id as their value and record nothing else', () => {
    const [ecb] = compileScript('BEGIN { speculate(3); printf("%d", 1); }').ecbs;
    expect(ecb.actions.map((a) => a.kind)).toEqual([D.DTRACEACT_SPECULATE, D.DTRACEACT_PRINTF]);
    expect(fire('BEGIN { speculate(3); }')).toEqual([3n]);
    const kinds = compileScript('BEGIN { commit(1); discard(2); }').ecbs[0].actions.map((a) => a.kind);
    expect(kinds).toEqual([D.DTRACEACT_COMMIT, D.DTRACEACT_DISCARD]);
  });
});

describe('speculation() on the reference machine', () => {
  test('hands out 1..nspec, then 0', () => {
    const m = new DifMachine({ nspec: 2 });
    expect(fire('BEGIN { trace(speculation()); trace(speculation()); trace(speculation()); }', m)).toEqual([1n, 2n, 0n]);
    m.releaseSpeculation(2n);
    expect(fire('BEGIN { trace(speculation()); }', m)).toEqual([2n]);
  });

  test('one speculation by default', () => {
    expect(fire('BEGIN { trace(speculation()); trace(speculation()); }')).toEqual([1n, 0n]);
  });
});

describe('record tags', () => {
  test('round trip', () => {
    expect(parseSpecTag(specTag(SPEC_TAG.COMMIT_CLEAN, 65535, 0x1234))).toEqual({ kind: SPEC_TAG.COMMIT_CLEAN, id: 65535, gen: 0x234 });
    expect(specTag(SPEC_TAG.DATA, 1, 0)).toBe(0x10000001);
  });
});

describe('the consumer holds speculative records', () => {
  const record = (epid: number, tag: number, text: string) => {
    const b = Buffer.alloc(16 + text.length);
    b.writeUInt32LE(epid, 0);
    b.writeUInt32LE(tag, 4);
    b.write(text, 16);
    return b;
  };
  const texts = (rs: { raw: Buffer }[]) => rs.map((r) => r.raw.subarray(16).toString());
  const fakeDevice = () => {
    const cleaned: [number, number][] = [];
    const failures = { busy: 0, unavailable: 0 };
    const device = {
      cleanSpeculation: (id: number, gen: number) => cleaned.push([id, gen]),
      speculationFailures: () => { const f = { ...failures }; failures.busy = failures.unavailable = 0; return f; },
    } as unknown as Device;
    return { device, cleaned, failures };
  };

  test('commit releases them in order, committing CPU first; discard forgets them', () => {
    const { device, cleaned } = fakeDevice();
    const s = new Speculations(device);
    expect(s.take(1, record(2, specTag(SPEC_TAG.DATA, 1, 7), 'a'), specTag(SPEC_TAG.DATA, 1, 7))).toEqual([]);
    s.take(0, record(2, specTag(SPEC_TAG.DATA, 1, 7), 'b'), specTag(SPEC_TAG.DATA, 1, 7));
    s.take(0, record(2, specTag(SPEC_TAG.DATA, 2, 1), 'other'), specTag(SPEC_TAG.DATA, 2, 1));
    s.take(1, record(2, specTag(SPEC_TAG.DATA, 1, 7), 'c'), specTag(SPEC_TAG.DATA, 1, 7));
    const out = s.take(1, record(3, 0, ''), specTag(SPEC_TAG.COMMIT_CLEAN, 1, 7));
    expect(texts(out)).toEqual(['a', 'c', 'b']);
    expect(out.every((r) => r.raw.readUInt32LE(4) === 0)).toBe(true);
    // The speculation becomes free again when the cleaner runs (at -x cleanrate), not at once.
    expect(cleaned).toEqual([]);
    s.clean();
    expect(cleaned).toEqual([[1, 7]]);
    // Late records of a committed speculation print where they arrive; of a discarded one, never.
    expect(texts(s.take(0, record(2, 0, 'late'), specTag(SPEC_TAG.DATA, 1, 7)))).toEqual(['late']);
    expect(s.take(0, record(3, 0, ''), specTag(SPEC_TAG.DISCARD, 2, 1))).toEqual([]);
    expect(s.take(0, record(2, 0, 'x'), specTag(SPEC_TAG.DATA, 2, 1))).toEqual([]);
  });

  test('a new generation of an id is kept apart from the old one', () => {
    const { device } = fakeDevice();
    const s = new Speculations(device);
    s.take(0, record(2, 0, 'old'), specTag(SPEC_TAG.DATA, 1, 1));
    s.take(1, record(2, 0, 'new'), specTag(SPEC_TAG.DATA, 1, 2));
    expect(texts(s.take(0, record(3, 0, ''), specTag(SPEC_TAG.COMMIT, 1, 1)))).toEqual(['old']);
    expect(texts(s.take(1, record(3, 0, ''), specTag(SPEC_TAG.COMMIT, 1, 2)))).toEqual(['new']);
  });

  test('drop messages as dtrace prints them', () => {
    const { device, failures } = fakeDevice();
    const s = new Speculations(device);
    for (let i = 0; i < 3; i++) s.take(0, record(2, 0, ''), specTag(SPEC_TAG.DROP, 1, 1));
    s.take(0, record(2, 0, ''), specTag(SPEC_TAG.DROP, 2, 1));
    s.take(0, record(3, 0, ''), specTag(SPEC_TAG.DISCARD, 2, 1)); // a discarded speculation's drops are not reported
    s.take(0, record(3, 0, ''), specTag(SPEC_TAG.COMMIT, 1, 1));
    failures.busy = 1;
    failures.unavailable = 2;
    let err = '';
    s.report((t) => (err += t));
    expect(err).toBe(
      'dtrace: 3 speculative drops\n' +
      'dtrace: 1 failed speculation (available buffer(s) still busy)\n' +
      'dtrace: 2 failed speculations (no speculative buffer available)\n',
    );
    err = '';
    s.report((t) => (err += t));
    expect(err).toBe('');
  });
});
