// Differential test: the same compiled D runs on the reference DIF machine and, through dtrace(1),
// as eBPF on the real kernel; both must compute the same values and raise the same faults.
import { beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dtrace, kernelUnavailable } from '../helpers/run.js';
import { compile } from '../../src/compiler/compile.js';
import { ProbeRegistry } from '../../src/providers/registry.js';
import { DifFault, DifMachine } from '../../src/dif/machine.js';
import * as D from '../../src/dif/constants.js';

const skip = kernelUnavailable();

// Variables of every width and signedness, assigned in a clause of their own so that the
// expressions below are computed at run time.
const PREAMBLE = `
  i = 7; j = -2; k = 3; z = 0; sh = 65; one = 1;
  big = 0x7fffffffffffffff; neg = -9223372036854775807 - 1;
  u8 = (uint8_t)250; s8 = (int8_t)-5; u16 = (uint16_t)65530; s16 = (int16_t)-300;
  u32 = (uint32_t)4000000000; s32 = (int32_t)-70000; u64 = (uint64_t)-2;
  s = "hello"; t = "hello"; e = ""; up = "B"; lo = "a";
`;

const EXPRESSIONS = [
  // arithmetic and wrap-around
  'i + j', 'i - j', 'i * j', 'big + 1', 'neg - 1', 'big * 2', 'neg * -1', '-i', '-neg',
  // division and remainder signs
  'i / j', 'i % j', '-i / k', '-i % k', 'i / -k', 'i % -k', '-i / -k', '-i % -k', 'neg / -1', 'neg % -1',
  'u64 / 3', 'u64 % 7', '(uint64_t)j / 2', '(uint64_t)j % 7', 'u32 / k', 's32 / k', 's32 % k',
  // narrow types: promotion and truncation
  // (The parser reads "(name *" as the start of a cast, so products put the name second.)
  'u8 + 1', '2 * u8', '2 * s8', 'u16 + u16', '-s16 * -s16', 'u32 + u32', '2 * u32', '-s32 * -s32', '2 * big',
  '(uint8_t)(u8 + 10)', '(int8_t)u8', '(uint32_t)j', '(int32_t)u32', '(int16_t)u16', '(uint16_t)s16',
  '(int64_t)u32', '(uint64_t)s8',
  // shifts
  'i << 3', 'i << 60', 'one << 63', 'j >> 1', '(uint64_t)j >> 1', 's32 >> 4', 'u32 >> 4', 'u64 >> 63',
  'neg >> 63', 's8 >> 1', 'u8 >> 1', 'i << k', 'big >> k', 'i << sh', 'u64 >> sh', 'j >> sh',
  // bitwise and logical
  'i & 3', 'i | 8', 'i ^ 5', '~i', '~u8', '!i', '!z', 'i && z', 'i && k', 'i || z', 'z || z',
  'z && 10 / z', 'z == 0 || 10 / z', '!(i && j)', 'i ^^ z', 'i ^^ k',
  // comparisons, signed and unsigned
  'i < j', 'i > j', 'u64 > i', 'j < i', 'u8 > s8', 's8 < 0', 'u32 > s32', 'i == 7', 'i != 7', 'i <= 7',
  'i >= 8', 'neg < 0', 'u64 < 0', 'j < u32', 's32 < u8',
  // ternaries
  'i > j ? i : j', 'z ? 1 : 2', '(i > 3 ? 10 : 20) + 1', 'i < 0 ? -1 : i == 0 ? 0 : 1', 'z != 0 ? 10 / z : -1',
  // strings
  's == t', 's != t', 's == "hello"', 's < "help"', 's > "hel"', 'e < lo', 'up < lo', 'lo > up', 's >= t',
  'e == ""', 'strlen(s)', 'strlen(e)', 's == e ? 1 : 2',
];

function programText(exprs: string[] = EXPRESSIONS): string {
  const prints = exprs.map((x) => `\tprintf("%d\\n", (long long)(${x}));`).join('\n');
  return `BEGIN {${PREAMBLE}}\nBEGIN {\n${prints}\n}\nBEGIN { exit(0); }\n`;
}

/** Run a compiled program's BEGIN clauses on the machine: printf values, or the fault per clause. */
function onMachine(text: string): { values: (bigint | string)[]; faults: { action: number; fault: DifFault }[] } {
  const { program } = compile([{ kind: 's', text, name: 'differential.d' }], {
    registry: new ProbeRegistry(), options: new Map(), macroArgs: [], zdefs: false,
  });
  const m = new DifMachine();
  const values: (bigint | string)[] = [];
  const faults: { action: number; fault: DifFault }[] = [];
  const ctx = { probeprov: 'dtrace', probename: 'BEGIN', id: 1n, pid: BigInt(process.pid), tid: 1n };
  m.newFiring();
  for (const ecb of program.ecbs) {
    const r = m.runClause(ecb, ctx);
    ecb.actions.forEach((a, n) => {
      const v = r.actions[n];
      if (a.kind === D.DTRACEACT_PRINTF && v) values.push(v.string ?? v.signed);
    });
    if (r.fault && r.fault.where !== 'predicate') faults.push({ action: r.fault.where, fault: r.fault.fault });
  }
  return { values, faults };
}

describe.skipIf(skip)(`differential: reference machine vs kernel${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dtrace-diff-'));
  });

  test('expressions compute the same values', () => {
    const text = programText();
    const file = path.join(dir, 'exprs.d');
    writeFileSync(file, text);
    const machine = onMachine(text);
    expect(machine.faults).toEqual([]);
    const r = dtrace(['-qs', file]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const kernel = r.stdout.split('\n').filter((l) => l !== '').map((l) => BigInt(l));
    expect(kernel.length).toBe(EXPRESSIONS.length);
    const rows = EXPRESSIONS.map((x, n) => `${x} = machine ${machine.values[n]} kernel ${kernel[n]}`);
    const expected = EXPRESSIONS.map((x, n) => `${x} = machine ${machine.values[n]} kernel ${machine.values[n]}`);
    expect(rows).toEqual(expected);
  });

  // DTrace's CMP sets cc_n from the wrapped 64-bit difference and never sets cc_v, so a signed
  // comparison whose difference overflows answers as the wrapped sign says: INT64_MIN < INT64_MAX
  // is false in DTrace (dtrace_dif_emulate). The reference machine does the same.
  test('signed comparisons whose difference overflows answer as DTrace does', () => {
    const exprs = ['neg < big', 'big > neg', 'neg <= big', 'big >= neg'];
    const text = programText(exprs);
    const file = path.join(dir, 'overflow.d');
    writeFileSync(file, text);
    expect(onMachine(text).values).toEqual([0n, 0n, 0n, 0n]);
    const r = dtrace(['-qs', file]);
    expect(r.stdout.split('\n').filter((l) => l !== '')).toEqual(['0', '0', '0', '0']);
  });

  // Subroutines: those the compiler knows today; the rest join in as the compiler learns them.
  const SUBROUTINE_CASES: [string, 'd' | 's'][] = [
    ['strlen(s)', 'd'], ['strlen(e)', 'd'], ['index(s, "l")', 'd'], ['rindex(s, "l")', 'd'], ['index(s, "l", 3)', 'd'],
    ['rindex(s, "l", 2)', 'd'], ['index(s, "x")', 'd'], ['strtoll("123")', 'd'], ['strtoll("ff", 16)', 'd'],
    ['htons(0x1234)', 'd'], ['htonl(0x12345678)', 'd'], ['ntohs(0x3412)', 'd'],
    ['strjoin(s, "!")', 's'], ['substr(s, 1, 3)', 's'], ['substr(s, -3)', 's'], ['toupper(s)', 's'],
    ['tolower("ABC")', 's'], ['strstr(s, "ll")', 's'], ['basename("/usr/bin/ls")', 's'],
    ['dirname("/usr/bin/ls")', 's'], ['cleanpath("/a/../b/./c")', 's'], ['lltostr(-42)', 's'],
    ['lltostr(255, 16)', 's'],
    ['json("{\\"a\\":{\\"b\\":[1,2,3]}}", "a.b[1]")', 's'], ['json("[0,{\\"k\\":\\"v\\\\\\"w\\"}]", "[1].k")', 's'],
    ['json("{\\"a\\":[true, {\\"x\\": null}]}", "a")', 's'], ['json("{\\"n\\":-1.5E-3}", "n")', 's'],
    ['json("{\\"a\\":1}", "b") == (char *)0', 'd'], ['json("{\\"a\\" 1}", "a") == (char *)0', 'd'],
    ['inet_ntoa6(alloca(16))', 's'], ['inet_ntop(10, alloca(16))', 's'],
  ];

  // Each case runs alone: one BEGIN program holding them all is too large for the verifier. Every
  // subroutine here is translated by the Linux bridge: its result is compared (a refusal fails).
  test.each(SUBROUTINE_CASES)('subroutine %s computes the same value', (x, k) => {
    const text = `BEGIN {${PREAMBLE}}\nBEGIN { printf("%${k}\\n", ${x}); }\nBEGIN { exit(0); }\n`;
    const file = path.join(dir, 'subr.d');
    writeFileSync(file, text);
    const machine = onMachine(text);
    expect(machine.faults).toEqual([]);
    const r = dtrace(['-qs', file]);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')[0]).toBe(String(machine.values[0]));
  });

  // Variables of every scope holding integers and strings, keyed by tuples.
  const STATE_CASES: [string, string, 'd' | 's'][] = [
    ['a[1, "x"] = 7; a[2, "x"] = 8;', 'a[1, "x"] + a[2, "x"] + a[3, "x"]', 'd'],
    ['t[strjoin("a", "b")] = 3;', 't["ab"]', 'd'],
    ['self->s = "tls"; this->u = toupper(self->s);', 'strjoin(self->s, this->u)', 's'],
    ['self->n = 5; self->n += 2;', 'self->n * 3', 'd'],
    ['g = "x"; g = strjoin(g, g); g = strjoin(g, g);', 'g', 's'],
    ['c = 10; c <<= 2; c++;', 'c', 'd'],
    // stores through pointers into alloca()'d scratch memory
    ['this->p = (uint8_t *)alloca(4); this->p[0] = 65; this->p[1] = 66;', 'stringof(this->p)', 's'],
    ['this->q = (int32_t *)alloca(8); *this->q = -7; this->q[1] = this->q[0] * 2; this->q[1]++;', 'this->q[1]', 'd'],
    ['this->x = (uint64_t *)alloca(8); *this->x = 0x1122334455667788; ((uint16_t *)this->x)[1] = 0xffff;', '*this->x', 'd'],
    ['this->h = (int16_t *)alloca(4); *this->h = 0x18000; *this->h -= 1;', '*this->h', 'd'],
    // struct and string assignment through pointers (COPYS)
    ['this->a = (struct timespec64 *)alloca(32); this->a->tv_sec = 5; this->a->tv_nsec = -3; this->a[1] = *this->a; this->a[1].tv_sec++;',
      'this->a[1].tv_sec * 10 + this->a[1].tv_nsec', 'd'],
    ['this->s = (string *)alloca(256); *this->s = "abcdef"; *this->s = "xy";', 'strjoin(*this->s, (char *)this->s + 3)', 's'],
    ['this->s = (string *)alloca(256); *this->s = strjoin("a", "b");', 'strjoin(*this->s, *this->s)', 's'],
  ];
  test.each(STATE_CASES)('after %s, %s is the same', (setup, x, k) => {
    const text = `BEGIN { ${setup} printf("%${k}\\n", ${x}); }\nBEGIN { exit(0); }\n`;
    const file = path.join(dir, 'state.d');
    writeFileSync(file, text);
    const machine = onMachine(text);
    expect(machine.faults).toEqual([]);
    const r = dtrace(['-qs', file]);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')[0]).toBe(String(machine.values[0]));
  });

  test.each([
    ['i / z', 'divide-by-zero'],
    ['i % z', 'divide-by-zero'],
    ['(uint64_t)i / z', 'divide-by-zero'],
    ['*(int *)z', 'invalid address (0x0)'],
    ['(*(int *)z = 1)', 'invalid address (0x0)'],
  ])('%s faults the same way', (expr, message) => {
    const text = `BEGIN { i = 7; z = 0; }\nBEGIN { printf("%d\\n", (long long)(${expr})); }\nBEGIN { exit(0); }\n`;
    const file = path.join(dir, 'fault.d');
    writeFileSync(file, text);
    const machine = onMachine(text);
    expect(machine.faults.length).toBe(1);
    const { action, fault } = machine.faults[0]!;
    expect(fault.message).toBe(message);
    const r = dtrace(['-qs', file]);
    expect(r.stderr).toContain(`: ${fault.message} in action #${action} at DIF offset ${fault.offset}\n`);
  });
});
