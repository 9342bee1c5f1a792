// The consumer's pure formatting pieces added for print(), -F and printf's %d: what a user sees
// for given bytes and types, without a kernel.
import { describe, expect, test } from 'vitest';
import { describeType } from '../../src/compiler/print.js';
import { PRINT_ADDRESS_FORMAT, PRINT_FORMAT_PREFIX } from '../../src/abi/print-schema.js';
import { formatPrint } from '../../src/consumer/print.js';
import { FlowIndent, flowHeading, flowOf } from '../../src/consumer/flowindent.js';
import { formatPrintf } from '../../src/consumer/printf.js';
import { resolveSignedness } from '../../src/abi/printf-format.js';
import type { DType, StructDef } from '../../src/compiler/types.js';
import type { EnabledProbe } from '../../src/device/device.js';
import { intValue } from '../../src/consumer/records.js';

const INT: DType = { kind: 'int', size: 4, signed: true, name: 'int' };
const CHAR: DType = { kind: 'int', size: 1, signed: true, name: 'char' };
const U16: DType = { kind: 'int', size: 2, signed: false, name: 'uint16_t' };

function printOf(t: DType, data: Buffer, printsize?: number): string {
  return formatPrint(PRINT_FORMAT_PREFIX + JSON.stringify(describeType(t, 256)), data, printsize);
}

/** Lines indented as print() indents them: 44 columns, one more a level. */
function lines(...l: [number, string][]): string {
  return l.map(([d, text]) => ' '.repeat(44 + d) + text + '\n').join('');
}

function struct(tag: string, size: number, members: [string, DType, number, number?][]): DType {
  const def: StructDef = {
    tag, union: false, complete: true, size, align: 8, origin: 'D',
    members: () => members.map(([name, type, byte, bits]) => ({ name, type, bitOffset: byte * 8, bits: bits ?? 0 })),
  };
  return { kind: 'struct', def };
}

describe('print()', () => {
  test('the address line, then a scalar pointee "(type)value," even when zero', () => {
    const addr = Buffer.alloc(8);
    addr.writeBigUInt64LE(0xffff1234n);
    expect(formatPrint(PRINT_ADDRESS_FORMAT, addr)).toBe('0xffff1234 = *\n');
    const b = Buffer.alloc(4);
    b.writeInt32LE(-26);
    expect(printOf(INT, b)).toBe(lines([0, '(int)-26,']));
    expect(printOf(INT, Buffer.alloc(4))).toBe(lines([0, '(int)0,']));
    expect(printOf(CHAR, Buffer.from([0x41]))).toBe(lines([0, "(char)'A',"]));
  });

  const inner = struct('inner', 4, [['x', INT, 0]]);
  const arr: DType = { kind: 'array', of: U16, count: 3 };
  const name: DType = { kind: 'array', of: CHAR, count: 4 };
  const t = struct('foo', 24, [['a', INT, 0], ['in', inner, 4], ['v', arr, 8], ['name', name, 14], ['p', { kind: 'pointer', name: 'int *' }, 16]]);
  const b = Buffer.alloc(24);
  b.writeInt32LE(1, 0);
  b.writeInt32LE(3, 4);
  b.writeUInt16LE(7, 12);
  b.write('ab', 14, 'latin1');

  test('a struct: a member a line, zero members and elements left out, chars up to the NUL', () => {
    expect(printOf(t, b)).toBe(lines(
      [0, '(struct foo) {'],
      [1, '.a = (int)1,'],
      [1, '.in = (struct inner) {'],
      [2, '.x = (int)3,'],
      [1, '},'],
      [1, '.v = (uint16_t [3]) ['],
      [2, '(uint16_t)7,'],
      [1, '],'],
      [1, '.name = (char [4]) ['],
      [2, "(char)'a',"],
      [2, "(char)'b',"],
      [1, '],'],
      [0, '}'],
    ));
  });

  test('printsize, rounded up to 8 bytes: "..." for the first item past it, after a closing brace it follows', () => {
    expect(printOf(t, b, 1)).toBe(lines(
      [0, '(struct foo) {'],
      [1, '.a = (int)1,'],
      [1, '.in = (struct inner) {'],
      [2, '.x = (int)3,'],
      [1, '...'],
      [1, '},'],
      [0, '}'],
    ));
    expect(printOf(t, b, 16)).toBe(printOf(t, b).replace(lines([0, '}']), lines([1, '...'], [0, '}'])));
  });
});

describe('-F flow indentation', () => {
  const probe = (epid: number, id: number, provider: string, func: string, name: string): EnabledProbe =>
    ({ epid, probe: { id, provider, module: '', func, name }, ecb: 0, size: 0, records: [] });

  test('entry and return are recognized by name', () => {
    expect(flowOf('entry')).toBe('entry');
    expect(flowOf('function-entry')).toBe('entry');
    expect(flowOf('return')).toBe('return');
    expect(flowOf('carpentry')).toBe('none');
    expect(flowOf('BEGIN')).toBe('none');
  });

  test('two spaces a level; a return lines up with its entry', () => {
    const f = new FlowIndent();
    const a = probe(1, 10, 'fbt', 'a', 'entry'), b = probe(2, 11, 'fbt', 'b', 'entry');
    const br = probe(3, 12, 'fbt', 'b', 'return'), ar = probe(4, 13, 'fbt', 'a', 'return');
    const lines = [f.prefix(0, a, null), f.prefix(0, b, null), f.prefix(0, br, null), f.prefix(0, ar, null)];
    expect(lines.map((l) => l.trimEnd())).toEqual(['  0  -> a', '  0    -> b', '  0    <- b', '  0  <- a']);
    expect(lines[0].length).toBe(4 + 41 + 1);
    expect(flowHeading()).toBe('CPU FUNCTION' + ' '.repeat(33) + '\n');
  });

  test('USDT and pid probes indent with their function; an unknown function shows the probe name', () => {
    const f = new FlowIndent();
    const e = probe(1, 10, 'python1234', '', 'function-entry'), r = probe(2, 11, 'python1234', '', 'function-return');
    const q = probe(3, 12, 'postgresql99', 'exec_simple_query', 'query-start');
    const m = probe(4, 13, 'pid99', 'malloc', 'entry');
    expect([f.prefix(0, e, null), f.prefix(0, m, null), f.prefix(0, q, null), f.prefix(0, r, null)].map((l) => l.trimEnd()))
      .toEqual(['  0  -> function-entry', '  0    -> malloc', '  0     | exec_simple_query:query-start', '  0    <- function-return']);
  });

  test('a second clause on the same probe does not indent again', () => {
    const f = new FlowIndent();
    const e1 = probe(1, 10, 'syscall', 'read', 'entry'), e2 = probe(2, 10, 'syscall', 'read', 'entry');
    expect(f.prefix(1, e1, null).trimEnd()).toBe('  1  => read');
    expect(f.prefix(1, e2, null).trimEnd()).toBe('  1   | read:entry');
  });
});

describe('printf %d follows the argument type', () => {
  test('the compiler turns %d of an unsigned argument into %u', () => {
    const u8 = { name: 'uint8_t', kind: 'integer' as const, size: 1, signed: false };
    const s8 = { name: 'char', kind: 'integer' as const, size: 1, signed: true };
    expect(resolveSignedness('%d %-5d %*d %i|%%d', [u8, u8, s8, u8, u8])).toBe('%u %-5u %*u %i|%%d');
    expect(resolveSignedness('%d', [s8])).toBe('%d');
  });

  test('%d and %i follow the argument signedness (DTrace for Linux)', () => {
    expect(formatPrintf('%d %u %i', [intValue(0xfd, 1, true), intValue(0xfd, 1, true), intValue(0xfd, 1, false)])).toBe('-3 253 253');
    expect(formatPrintf('%u', [intValue(-3, 4, false)])).toBe('4294967293');
  });
});
