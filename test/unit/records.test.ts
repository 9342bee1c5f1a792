import { describe, expect, test } from 'vitest';
import {
  formatBytes,
  formatRecordLine,
  formatTraceValue,
  formatTracemem,
  probeHeader,
  recordPrefix,
  type Value,
} from '../../src/consumer/records.js';

const int = (value: number | bigint, size: 1 | 2 | 4 | 8, signed = true): Value => ({
  kind: 'int',
  value: BigInt(value),
  size,
  signed,
});
const str = (value: string): Value => ({ kind: 'string', value });

describe('probe header and record prefix', () => {
  test('header is "%3s %6s %32s"', () => {
    // Checked against published dtrace(1M) output (DTrace guide examples).
    expect(probeHeader()).toBe('CPU     ID                    FUNCTION:NAME\n');
  });

  test('prefix is "%3d %6d %32s "', () => {
    // As in the guide's "dtrace -n BEGIN" example: "  0      1                           :BEGIN".
    expect(recordPrefix(0, 1, '', 'BEGIN')).toBe('  0      1                           :BEGIN ');
    expect(recordPrefix(12, 4711, 'read', 'entry')).toBe(' 12   4711                       read:entry ');
  });

  test('a long function:name widens the column rather than being cut', () => {
    const name = 'a_very_long_kernel_function_name';
    expect(recordPrefix(1, 2, name, 'entry')).toBe(`  1      2 ${name}:entry `);
  });

  test('the default action is the bare probe line', () => {
    expect(formatRecordLine(0, 1, '', 'BEGIN', [])).toBe('  0      1                           :BEGIN \n');
    expect(formatRecordLine(0, 1, '', 'BEGIN', [], { quiet: true })).toBe('');
  });
});

describe('trace() of integers', () => {
  test('widths by size: 3, 5, 10, 19 (DTrace for Linux; illumos has 8 and 16)', () => {
    expect(formatTraceValue(int(7, 1))).toBe('   7');
    expect(formatTraceValue(int(7, 2))).toBe('     7');
    expect(formatTraceValue(int(7, 4))).toBe('          7');
    expect(formatTraceValue(int(7, 8))).toBe('                   7');
  });

  test('signed or unsigned as the type is, whatever the size (as DTrace for Linux prints them)', () => {
    expect(formatTraceValue(int(-2, 1))).toBe('  -2');
    expect(formatTraceValue(int(-2, 1, false))).toBe(' 254');
    expect(formatTraceValue(int(-2, 2))).toBe('    -2');
    expect(formatTraceValue(int(-2, 2, false))).toBe(' 65534');
    expect(formatTraceValue(int(-2, 4))).toBe('         -2');
    expect(formatTraceValue(int(0xffffffff, 4, false))).toBe(' 4294967295');
    expect(formatTraceValue(int(-2, 8))).toBe('                  -2');
    expect(formatTraceValue(int(2n ** 64n - 1n, 8, false))).toBe(' 18446744073709551615');
  });

  test('quiet prints the bare number', () => {
    expect(formatTraceValue(int(-2, 8), { quiet: true })).toBe('-2');
    expect(formatTraceValue(int(-2, 1), { quiet: true })).toBe('-2');
    expect(formatTraceValue(int(-2, 1, false), { quiet: true })).toBe('254');
    expect(formatTraceValue(int(1234, 4), { quiet: true })).toBe('1234');
  });
});

describe('trace() of strings and bytes', () => {
  test('a string: two spaces then %-33s', () => {
    expect(formatTraceValue(str('hello'))).toBe('  hello' + ' '.repeat(28));
    expect(formatTraceValue(str('x'.repeat(40)))).toBe('  ' + 'x'.repeat(40));
  });

  test('quiet string is bare', () => {
    expect(formatTraceValue(str('hello'), { quiet: true })).toBe('hello');
    expect(formatTraceValue(str('a\n'), { quiet: true })).toBe('a\n');
  });

  test('several trace() actions on one line', () => {
    const line = formatRecordLine(0, 1, '', 'BEGIN', [int(42, 4), str('hi'), int(-1, 8)]);
    expect(line).toBe(
      '  0      1                           :BEGIN ' +
        '         42' +
        '  hi' + ' '.repeat(31) +
        '                  -1' +
        '\n',
    );
  });

  test('an empty string prints as an empty field, as DTrace for Linux prints it', () => {
    // illumos' dt_print_bytes dumps it; the reference DTrace for Linux prints the empty string.
    expect(formatTraceValue(str(''), { strsize: 16 })).toBe('  ' + ' '.repeat(33));
    expect(formatTraceValue(str(''), { strsize: 16, quiet: true })).toBe('');
  });

  test('non-text bytes give the hex/ASCII dump', () => {
    const data = Buffer.from([0x01, 0x41, 0x42, 0xff, 0x7e, 0x20, 0x00, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0x61, 0x62]);
    expect(formatTraceValue({ kind: 'bytes', value: data })).toBe(
      '\n' +
        '             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n' +
        '         0: 01 41 42 ff 7e 20 00 10 00 00 00 00 00 00 00 00  .AB.~ ..........\n' +
        '        10: 61 62                                            ab\n',
    );
  });

  test('printable bytes without a terminator print as a string', () => {
    expect(formatTraceValue({ kind: 'bytes', value: Buffer.from('abcd') })).toBe('  abcd' + ' '.repeat(29));
  });

  test('text followed by NULs prints as a string; text, NUL, text is dumped', () => {
    expect(formatBytes(Buffer.from('ab\0\0'), -33, false, false)).toBe('  ab' + ' '.repeat(31));
    expect(formatBytes(Buffer.from('ab\0c'), -33, false, false)).toMatch(/^\n {13}0 {2}1/);
  });

  test('tracemem() always dumps', () => {
    expect(formatTracemem(Buffer.from('hi'))).toBe(
      '\n' +
        '             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n' +
        '         0: 68 69                                            hi\n',
    );
  });
});
