// The text consumer's compiled records (walk.ts planActions, printf.ts planPrintf): a record's
// text made straight from its bytes must be, byte for byte, what walking its actions and
// formatting them with formatPrintf prints -- for every size, signedness, conversion and field.

import { describe, expect, test } from 'vitest';
import * as D from '../../src/dif/constants.js';
import type { RecordDescription } from '../../src/device/device.js';
import type { Aggregations } from '../../src/consumer/aggregations.js';
import { planActions, walkActions } from '../../src/consumer/walk.js';
import { formatPrintf } from '../../src/consumer/printf.js';

const HEADER = 8;

/** What the text consumer prints for a record by walking its actions (consumer.ts's renderer). */
function walked(recs: RecordDescription[], raw: Buffer): string {
  let line = '';
  walkActions(recs, raw.subarray(HEADER), {} as Aggregations, {
    printf: (r, args) => { line += formatPrintf(r.format ?? '', args); },
    trace: () => { throw new Error('not a printf record'); },
    print: () => {},
    printa: () => {},
    setopt: () => {},
    tracemem: () => {},
    exit: () => {},
    symbolic: () => {},
  });
  return line;
}

const rec = (action: number, offset: number, size: number, type: RecordDescription['type'], extra: Partial<RecordDescription> = {}): RecordDescription =>
  ({ action, size, offset, alignment: Math.min(size, 8), arg: 0n, uarg: 0n, type, ...extra });

/** printf(fmt, ...) with one argument record of this size and type, its bytes `value`. */
function oneArg(fmt: string, size: 1 | 2 | 4 | 8, type: 'int' | 'uint', value: bigint, shown?: 1 | 2 | 4 | 8): { recs: RecordDescription[]; raw: Buffer } {
  const raw = Buffer.alloc(HEADER + 16);
  const at = HEADER + 8;
  const v = BigInt.asUintN(size * 8, value);
  if (size === 1) raw.writeUInt8(Number(v), at);
  else if (size === 2) raw.writeUInt16LE(Number(v), at);
  else if (size === 4) raw.writeUInt32LE(Number(v), at);
  else raw.writeBigUInt64LE(v, at);
  const recs = [rec(D.DTRACEACT_PRINTF, 0, 0, 'int', { format: fmt }), rec(D.DTRACEACT_DIFEXPR, 8, size, type, shown ? { shown } : {})];
  return { recs, raw };
}

const VALUES = [0n, 1n, -1n, 7n, 42n, -42n, 127n, -128n, 255n, 32767n, -32768n, 65535n, 2147483647n, -2147483648n, 4294967295n,
  (1n << 53n) - 1n, -(1n << 53n), (1n << 53n) + 1n, 1n << 52n, -(1n << 52n) - 1n, (1n << 63n) - 1n, -(1n << 63n), 0x1234567890abcdefn];

describe('planPrintf', () => {
  test('integer conversions print as the walk does, for every size, signedness and field', () => {
    const convs = ['%d', '%i', '%u', '%x', '%X', '%o', '%p', '%ld', '%lu', '%lx', '%hd', '%hu', '%hx', '%lld', '%llu',
      '%5d', '%-5d|', '%05d', '%+d', '% d', '%#x', '%#o', '%.3d', '%8.3x', '%-#10X|', '%20llu', '%.0d'];
    let planned = 0;
    for (const conv of convs) {
      for (const size of [1, 2, 4, 8] as const) {
        for (const type of ['int', 'uint'] as const) {
          for (const value of VALUES) {
            const { recs, raw } = oneArg(`<${conv}>\n`, size, type, value);
            const plan = planActions(recs);
            if (plan === null) continue;
            planned++;
            expect(plan(raw, HEADER), `${conv} size ${size} ${type} ${value}`).toBe(walked(recs, raw));
          }
        }
      }
    }
    expect(planned).toBeGreaterThan(4000);
  });

  test('a value shown at another size than it is stored is taken at its shown size', () => {
    for (const shown of [1, 2, 4] as const) {
      for (const value of VALUES) {
        for (const conv of ['%d', '%u', '%x']) {
          const { recs, raw } = oneArg(`${conv}\n`, 8, 'int', value, shown);
          const plan = planActions(recs);
          expect(plan).not.toBeNull();
          expect(plan!(raw, HEADER), `${conv} shown ${shown} ${value}`).toBe(walked(recs, raw));
        }
      }
    }
  });

  test('strings: up to the NUL or the record end, UTF-8, with fields', () => {
    const texts = [Buffer.from('storm\0junk'), Buffer.from(''), Buffer.from('exactly16bytes!!'), Buffer.from('caf\xc3\xa9\0', 'latin1'), Buffer.from([0xff, 0x41, 0])];
    for (const fmt of ['%s\n', '[%10s]', '[%-10s]', '[%.3s]', '%s%%%s']) {
      for (const bytes of texts) {
        const raw = Buffer.alloc(HEADER + 8 + 16 + 16);
        bytes.copy(raw, HEADER + 8, 0, Math.min(16, bytes.length));
        raw.write('second', HEADER + 24);
        // The printf record holds the first argument; a second comes from the record after it.
        const recs = [rec(D.DTRACEACT_PRINTF, 8, 16, 'string', { format: fmt }), rec(D.DTRACEACT_DIFEXPR, 24, 16, 'bytes')];
        const used = recs.slice(0, fmt.includes('%%') ? 2 : 1);
        const plan = planActions(used);
        expect(plan, fmt).not.toBeNull();
        expect(plan!(raw, HEADER), `${fmt} ${bytes.toString('hex')}`).toBe(walked(used, raw));
      }
    }
  });

  test('several printf()s and expression statements in one record', () => {
    const raw = Buffer.alloc(HEADER + 32);
    raw.writeInt32LE(-5, HEADER);
    raw.write('storm', HEADER + 8);
    raw.writeBigInt64LE(123456789012n, HEADER + 24);
    const recs = [
      rec(D.DTRACEACT_DIFEXPR, 0, 0, 'int'),
      rec(D.DTRACEACT_PRINTF, 0, 4, 'int', { format: '%d ' }),
      rec(D.DTRACEACT_PRINTF, 8, 16, 'string', { format: '%s ' }),
      rec(D.DTRACEACT_PRINTF, 0, 0, 'int', { format: 'n=%lld\n' }),
      rec(D.DTRACEACT_DIFEXPR, 24, 8, 'int'),
    ];
    expect(planActions(recs)!(raw, HEADER)).toBe('-5 storm n=123456789012\n');
    expect(walked(recs, raw)).toBe('-5 storm n=123456789012\n');
  });

  test('what it does not compile is left to the walk', () => {
    const pf = (format: string, ...rest: RecordDescription[]) => [rec(D.DTRACEACT_PRINTF, 0, 0, 'int', { format }), ...rest];
    expect(planActions(pf('%*d\n', rec(D.DTRACEACT_DIFEXPR, 0, 4, 'int'), rec(D.DTRACEACT_DIFEXPR, 8, 4, 'int')))).toBeNull();
    expect(planActions(pf('%c\n', rec(D.DTRACEACT_DIFEXPR, 0, 4, 'int')))).toBeNull();
    expect(planActions(pf('%a\n', rec(D.DTRACEACT_DIFEXPR, 0, 8, 'int')))).toBeNull();
    expect(planActions(pf('%s\n', rec(D.DTRACEACT_DIFEXPR, 0, 8, 'int')))).toBeNull(); // formatPrintf reports it
    expect(planActions(pf('%d %d\n', rec(D.DTRACEACT_DIFEXPR, 0, 8, 'int')))).toBeNull(); // an argument short
    expect(planActions([rec(D.DTRACEACT_DIFEXPR, 0, 8, 'int')])).toBeNull(); // trace()
    expect(planActions([rec(D.DTRACEACT_EXIT, 0, 4, 'int')])).toBeNull();
  });
});
