import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { formatPrintf, type SymbolLookup } from '../../src/consumer/printf.js';
import { countPrintfArgs, parseFormat, PrintfError, validateFormat, type ArgType } from '../../src/abi/printf-format.js';
import type { Value } from '../../src/consumer/records.js';

const i = (value: number | bigint, size: 1 | 2 | 4 | 8 = 4, signed = true): Value => ({
  kind: 'int',
  value: BigInt(value),
  size,
  signed,
});
const u = (value: number | bigint, size: 1 | 2 | 4 | 8 = 4): Value => i(value, size, false);
const s = (value: string): Value => ({ kind: 'string', value });
const dbl = (x: number): Value => {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(x);
  return { kind: 'int', value: b.readBigUInt64LE(0), size: 8, signed: false };
};
const pf = (fmt: string, ...args: Value[]) => formatPrintf(fmt, args);

// Expected strings for plain C conversions were checked against glibc
// printf(3) with the same format and a C value of the same type; DTrace
// passes these conversions to the C library unchanged.
describe('integer conversions', () => {
  test('%d and %i follow the argument signedness and size', () => {
    expect(pf('%d', i(-1))).toBe('-1');
    expect(pf('%i', i(42))).toBe('42');
    expect(pf('%d', u(0xffffffff))).toBe('4294967295');
    expect(pf('%d', i(-1, 8))).toBe('-1');
    expect(pf('%d', u(2n ** 64n - 1n, 8))).toBe('18446744073709551615');
    expect(pf('%d', i(-2, 1))).toBe('-2');
    expect(pf('%d', u(254, 1))).toBe('254');
    expect(pf('%d', i(-9223372036854775808n, 8))).toBe('-9223372036854775808');
  });

  test('%u, %x, %X, %o read the argument unsigned at its own size', () => {
    expect(pf('%u', i(-1))).toBe('4294967295');
    expect(pf('%u', i(-1, 8))).toBe('18446744073709551615');
    expect(pf('%x', i(-1, 8))).toBe('ffffffffffffffff');
    expect(pf('%x', i(-1, 4))).toBe('ffffffff');
    expect(pf('%x', i(-1, 2))).toBe('ffff');
    expect(pf('%x', i(-1, 1))).toBe('ff');
    expect(pf('%X', u(255))).toBe('FF');
    expect(pf('%o', u(8))).toBe('10');
  });

  test('h, l, ll prefixes only check types: the value formats by its own size', () => {
    expect(pf('%hd', i(-3, 2))).toBe('-3');
    expect(pf('%hu', u(65535, 2))).toBe('65535');
    expect(pf('%hx', i(-1, 2))).toBe('ffff');
    expect(pf('%ld', i(-5, 8))).toBe('-5');
    expect(pf('%lu', i(-1, 8))).toBe('18446744073709551615');
    expect(pf('%lx', u(0xdeadbeefn, 8))).toBe('deadbeef');
    expect(pf('%lld', i(-7, 8))).toBe('-7');
    expect(pf('%llu', u(7, 8))).toBe('7');
    expect(pf('%llx', i(-2, 8))).toBe('fffffffffffffffe');
    expect(pf('%llX', u(0xabcn, 8))).toBe('ABC');
    expect(pf('%llo', u(64, 8))).toBe('100');
    expect(pf('%li', i(9, 8))).toBe('9');
  });

  test('flags and widths', () => {
    expect(pf('%5d', i(42))).toBe('   42');
    expect(pf('%-5d|', i(42))).toBe('42   |');
    expect(pf('%05d', i(-42))).toBe('-0042');
    expect(pf('%+d', i(42))).toBe('+42');
    expect(pf('% d', i(42))).toBe(' 42');
    expect(pf('%+ d', i(42))).toBe('+42');
    expect(pf('%.3d', i(7))).toBe('007');
    expect(pf('%8.3d', i(-7))).toBe('    -007');
    expect(pf('%08.3d', i(7))).toBe('     007');
    expect(pf('%#x', u(255))).toBe('0xff');
    expect(pf('%#X', u(255))).toBe('0XFF');
    expect(pf('%#x', u(0))).toBe('0');
    expect(pf('%#o', u(8))).toBe('010');
    expect(pf('%08x', u(0xbeef))).toBe('0000beef');
    expect(pf('%-8x|', u(0xbeef))).toBe('beef    |');
    expect(pf("%'d", i(1234567))).toBe('1234567'); // C locale: no grouping
  });

  test("DTrace quirks: '0' after '-' cancels '-', and .0 is no precision", () => {
    expect(pf('%-05d', i(42))).toBe('00042');
    expect(pf('%5.0d', i(0))).toBe('    0');
    expect(pf('%.0f', dbl(3))).toBe('3.000000');
  });

  test('%? is a pointer-sized width of 16', () => {
    expect(pf('%?p', u(0x1000n, 8))).toBe('            1000');
  });

  test('%p is bare lowercase hex', () => {
    expect(pf('%p', u(0xffff0000deadn, 8))).toBe('ffff0000dead');
  });

  test('%c of an int; %lc and %wc of a wide character', () => {
    expect(pf('%c', i(65))).toBe('A');
    expect(pf('%c', i(65, 1))).toBe('A');
    expect(pf('%5c', i(65))).toBe('    A');
    expect(pf('%-3c|', i(65))).toBe('A  |');
    expect(pf('%wc', i(0x263a))).toBe('\u263a');
    expect(pf('%lc', i(66))).toBe('B');
  });

  test('%C escapes the character', () => {
    expect(pf('%C', i(10))).toBe('\\n');
    expect(pf('%C', i(65))).toBe('A');
    expect(pf('%C', i(1))).toBe('\\001');
  });
});

describe('* width and precision', () => {
  test('taken from the arguments, in order', () => {
    expect(pf('%*d', i(5), i(42))).toBe('   42');
    expect(pf('%.*d', i(4), i(42))).toBe('0042');
    expect(pf('%*.*d|', i(6), i(3), i(5))).toBe('   005|');
    expect(pf('%*s|', i(6), s('ab'))).toBe('    ab|');
  });

  test('a negative * width left-justifies', () => {
    expect(pf('%*d|', i(-5), i(42))).toBe('42   |');
  });

  test('a 64-bit * argument is read as an int', () => {
    expect(pf('%*d', i(3, 8), i(1))).toBe('  1');
  });

  test('a * width or precision from traced data past 16M characters is cut to 16M, not a crash', () => {
    expect(pf('%*d|', i(540000000), i(1)).length).toBe((1 << 24) + 1);
    expect(pf('%*d|', i(-540000000), i(1)).length).toBe((1 << 24) + 1);
    expect(pf('%.*d|', i(540000000), i(1)).length).toBe((1 << 24) + 1);
  });
});

describe('strings', () => {
  test('%s with width, precision and left justification', () => {
    expect(pf('%s', s('hello'))).toBe('hello');
    expect(pf('%10s', s('hello'))).toBe('     hello');
    expect(pf('%-10s|', s('hello'))).toBe('hello     |');
    expect(pf('%.3s', s('hello'))).toBe('hel');
    expect(pf('%10.3s', s('hello'))).toBe('       hel');
    expect(pf('%010s', s('hello'))).toBe('     hello');
  });

  test('%s of a char array stops at the NUL', () => {
    expect(pf('%s', { kind: 'bytes', value: Buffer.from('abc\0def') })).toBe('abc');
  });

  test('%S escapes', () => {
    expect(pf('%S', s('a\tb\n"c"\\ \x7f'))).toBe('a\\tb\\n\\"c\\"\\\\ \\177');
  });

  test('%ws of a wchar_t array', () => {
    const b = Buffer.alloc(16);
    b.writeUInt32LE(0x48, 0);
    b.writeUInt32LE(0x263a, 4);
    expect(pf('%ws', { kind: 'bytes', value: b })).toBe('H\u263a');
  });

  test('text, %% and escapes already decoded', () => {
    expect(pf('100%%\n')).toBe('100%\n');
    expect(pf('a\tb %d%%', i(5))).toBe('a\tb 5%');
    expect(pf('')).toBe('');
  });
});

describe('floating point', () => {
  test('%e %E %f %g %G', () => {
    expect(pf('%f', dbl(3.14159))).toBe('3.141590');
    expect(pf('%.2f', dbl(3.14159))).toBe('3.14');
    expect(pf('%10.2f', dbl(-3.14159))).toBe('     -3.14');
    expect(pf('%010.2f', dbl(-3.14159))).toBe('-000003.14');
    expect(pf('%.1f', dbl(0.25))).toBe('0.2'); // ties to even, as the C library rounds
    expect(pf('%e', dbl(12345.678))).toBe('1.234568e+04');
    expect(pf('%.2e', dbl(0.000123))).toBe('1.23e-04');
    expect(pf('%E', dbl(12345.678))).toBe('1.234568E+04');
    expect(pf('%g', dbl(0.0001))).toBe('0.0001');
    expect(pf('%g', dbl(0.00001))).toBe('1e-05');
    expect(pf('%g', dbl(1234567))).toBe('1.23457e+06');
    expect(pf('%G', dbl(0.00001))).toBe('1E-05');
    expect(pf('%#g', dbl(1.5))).toBe('1.50000');
    expect(pf('%g', dbl(100))).toBe('100');
    expect(pf('%f', dbl(1e22))).toBe('10000000000000000000000.000000');
    expect(pf('%.3e', dbl(9.9996))).toBe('1.000e+01');
  });

  test('a 4-byte value is a float', () => {
    const b = Buffer.alloc(4);
    b.writeFloatLE(1.5);
    expect(pf('%f', { kind: 'int', value: BigInt(b.readUInt32LE(0)), size: 4, signed: false })).toBe('1.500000');
  });
});

describe('%Y and %T', () => {
  const saved = process.env.TZ;
  beforeAll(() => {
    process.env.TZ = 'UTC';
  });
  afterAll(() => {
    process.env.TZ = saved;
  });

  test('%Y is ctime reordered: year first, day space-padded', () => {
    const ns = BigInt(Date.UTC(2026, 10, 22, 4, 5, 6)) * 1_000_000n + 123n;
    expect(pf('%Y', i(ns, 8))).toBe('2026 Nov 22 04:05:06');
    const ns2 = BigInt(Date.UTC(1973, 11, 3, 17, 20, 0)) * 1_000_000n;
    expect(pf('%Y', i(ns2, 8))).toBe('1973 Dec  3 17:20:00');
    expect(pf('%-22Y|', i(ns2, 8))).toBe('1973 Dec  3 17:20:00  |');
  });

  test('%T is RFC 822 with the ISO week year', () => {
    const ns = BigInt(Date.UTC(2026, 10, 22, 4, 5, 6)) * 1_000_000n;
    expect(pf('%T', i(ns, 8))).toBe('Sun, 22 Nov 2026 04:05:06 UTC');
    // 2027-01-01 is a Friday: its ISO week belongs to 2026 (strftime %G).
    const ny = BigInt(Date.UTC(2027, 0, 1, 0, 0, 0)) * 1_000_000n;
    expect(pf('%T', i(ny, 8))).toBe('Fri, 01 Jan 2026 00:00:00 UTC');
  });
});

describe('symbols', () => {
  const lookup: SymbolLookup = (addr) => {
    if (addr >= 0x1000n && addr < 0x1100n) return { module: 'vmlinux', symbol: { name: 'do_sys_open', value: 0x1000n } };
    if (addr >= 0x2000n && addr < 0x3000n) return { module: 'ext4' };
    return undefined;
  };

  test('%a: module`symbol+0xoffset, module`0xaddr, or 0xaddr', () => {
    const o = { kernelSymbols: lookup };
    expect(formatPrintf('%a', [u(0x1000n, 8)], o)).toBe('vmlinux`do_sys_open');
    expect(formatPrintf('%a', [u(0x1010n, 8)], o)).toBe('vmlinux`do_sys_open+0x10');
    expect(formatPrintf('%a', [u(0x2345n, 8)], o)).toBe('ext4`0x2345');
    expect(formatPrintf('%a', [u(0x9999n, 8)], o)).toBe('0x9999');
    expect(formatPrintf('%-30a|', [u(0x1010n, 8)], o)).toBe('vmlinux`do_sys_open+0x10      |');
    expect(pf('%a', u(0xabcn, 8))).toBe('0xabc');
  });

  test('%A uses the user lookup', () => {
    expect(formatPrintf('%A', [u(0x1004n, 8)], { userSymbols: lookup })).toBe('vmlinux`do_sys_open+0x4');
  });

  test('%k prints one frame a line, indented', () => {
    const b = Buffer.alloc(24);
    b.writeBigUInt64LE(0x1010n, 0);
    b.writeBigUInt64LE(0x9999n, 8);
    expect(formatPrintf('%k', [{ kind: 'bytes', value: b }], { kernelSymbols: lookup })).toBe(
      '\n' + ' '.repeat(14) + 'vmlinux`do_sys_open+0x10\n' + ' '.repeat(14) + '0x9999\n',
    );
    // A left-justified width sets the indentation.
    expect(formatPrintf('%-4k', [{ kind: 'bytes', value: b }], { kernelSymbols: lookup })).toBe(
      '\n    vmlinux`do_sys_open+0x10\n    0x9999\n',
    );
  });
});

describe('parseFormat', () => {
  test('pieces and flags', () => {
    const p = parseFormat('pid %-8d %@u %*.*s!');
    expect(p.map((x) => (x.kind === 'text' ? x.text : x.conv.text))).toEqual([
      'pid ',
      '%-8d',
      ' ',
      '%@u',
      ' ',
      '%*.*s',
      '!',
    ]);
    const c = p[1].kind === 'conv' ? p[1].conv : null;
    expect(c).toMatchObject({ index: 1, name: 'd', width: 8, prec: 0 });
    expect(c?.flags.left).toBe(true);
  });

  test('size prefixes form the conversion name', () => {
    const names = parseFormat('%hd %lld %llx %wc %ws %ls %Lf').flatMap((x) => (x.kind === 'conv' ? [x.conv.name] : []));
    expect(names).toEqual(['hd', 'lld', 'llx', 'wc', 'ws', 'ls', 'Lf']);
  });

  test("DTrace's format errors", () => {
    expect(() => parseFormat('%q')).toThrow('format conversion #1 is undefined: %q');
    expect(() => parseFormat('%d %')).toThrow('format conversion #2 name expected before end of format string');
    expect(() => parseFormat('%1$d')).toThrow('format conversion #1 uses unsupported positional format (%n$)');
    expect(() => parseFormat('%5%')).toThrow('format conversion #1 cannot be combined with other format flags: %%');
    expect(() => parseFormat('%1.2.3d')).toThrow("format conversion #1 has more than one '.' specified");
    expect(() => parseFormat('%**d')).toThrow(PrintfError);
  });

  test('countPrintfArgs', () => {
    expect(countPrintfArgs('%d %s %%')).toBe(2);
    expect(countPrintfArgs('%*.*d')).toBe(3);
    expect(countPrintfArgs('%@d %s')).toBe(1);
    expect(countPrintfArgs('plain')).toBe(0);
  });
});

describe('validateFormat', () => {
  const INT: ArgType = { name: 'int', kind: 'integer', size: 4, signed: true };
  const LONG: ArgType = { name: 'long', kind: 'integer', size: 8, signed: true };
  const SHORT: ArgType = { name: 'short', kind: 'integer', size: 2, signed: true };
  const STRING: ArgType = { name: 'string', kind: 'string' };
  const PTR: ArgType = { name: 'char *', kind: 'pointer', size: 8 };

  test('good formats pass', () => {
    expect(validateFormat('%d %s %p %x', [INT, STRING, PTR, LONG])).toBeNull();
    expect(validateFormat('%hd %c', [SHORT, INT])).toBeNull();
    expect(validateFormat('%*d', [INT, INT])).toBeNull();
  });

  test('D_PRINTF_ARG_TYPE', () => {
    // Message text and tag from dt_printf.c (dt_printf_validate).
    expect(validateFormat('%d %d', [INT, STRING])).toEqual({
      tag: 'D_PRINTF_ARG_TYPE',
      message:
        'printf( ) argument #3 is incompatible with conversion #2 prototype:\n' +
        '\tconversion: %d\n' +
        '\t prototype: char, short, int, long, or long long\n' +
        '\t  argument: string',
    });
    expect(validateFormat('%s', [INT])?.message).toContain('prototype: char [] or string (or use stringof)');
    expect(validateFormat('%c', [LONG])?.tag).toBe('D_PRINTF_ARG_TYPE');
    expect(validateFormat('%hd', [INT])?.message).toContain('\t prototype: short\n');
    expect(validateFormat('%Y', [INT])?.message).toContain('\t prototype: int64_t\n');
  });

  test('D_PRINTF_ARG_PROTO and D_PRINTF_ARG_EXTRA', () => {
    expect(validateFormat('%d %d %s', [INT, INT])).toEqual({
      tag: 'D_PRINTF_ARG_PROTO',
      message: 'printf( ) prototype mismatch: conversion #3 (%s) is missing a corresponding value argument',
    });
    expect(validateFormat('%d', [INT, INT], { exactLength: true })).toEqual({
      tag: 'D_PRINTF_ARG_EXTRA',
      message: 'printf( ) prototype mismatch: only 1 arguments required by this format string',
    });
  });

  test('dynamic width errors', () => {
    expect(validateFormat('%*d', [INT])?.tag).toBe('D_PRINTF_ARG_PROTO');
    expect(validateFormat('%*d', [])).toEqual({
      tag: 'D_PRINTF_DYN_PROTO',
      message: 'printf( ) prototype mismatch: conversion #1 (%d) is missing a corresponding "*" argument',
    });
    expect(validateFormat('%*d', [STRING, INT])).toEqual({
      tag: 'D_PRINTF_DYN_TYPE',
      message:
        'printf( ) argument #2 is incompatible with conversion #1 prototype:\n' +
        '\tconversion: % * d\n\t prototype: int\n\t  argument: string',
    });
  });

  test('%@ outside printa, and the aggregation value type', () => {
    expect(validateFormat('%@d', [])).toEqual({
      tag: 'D_PRINTF_AGG_CONV',
      message: '%@ conversion requires an aggregation and is not for use with printf( )',
    });
    expect(validateFormat('%s %@d', [STRING], { func: 'printa', aggregation: true, aggAction: 'count' })).toBeNull();
    expect(validateFormat('%@s', [], { func: 'printa', aggregation: true, aggAction: 'sum' })?.message).toBe(
      'printa( ) aggregating action is incompatible with conversion #1 prototype:\n' +
        '\tconversion: %s\n\t prototype: char [] or string (or use stringof)\n\t  argument: int64_t',
    );
  });

  test('empty format', () => {
    expect(validateFormat('', [])).toEqual({ tag: 'D_PRINTF_FMT_EMPTY', message: 'printf( ) format string is empty' });
  });

  test('syntax errors come back too', () => {
    expect(validateFormat('%q', [])?.message).toBe('format conversion #1 is undefined: %q');
  });
});
