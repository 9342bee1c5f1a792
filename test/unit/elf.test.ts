import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { ElfError, ElfFile, ET_DYN, readElf } from '../../src/sys/elf.js';

const PYTHON = '/usr/bin/python3';
let prog = '';

/** readelf's view of the same file, to compare against. */
function readelf(args: string[], file: string): string {
  return spawnSync('readelf', [...args, file], { encoding: 'utf8' }).stdout;
}

beforeAll(() => {
  const dir = mkdtempSync(path.join(tmpdir(), 'dtrace-elf-'));
  const src = path.join(dir, 'p.c');
  writeFileSync(src, 'static int helper(int x) { return x + 1; }\nint target(int x) { return helper(x) * 2; }\nint main(void) { return target(1) == 4 ? 0 : 1; }\n');
  prog = path.join(dir, 'p');
  const r = spawnSync('gcc', ['-O0', '-g', '-o', prog, src], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
});

describe('ElfFile', () => {
  test('rejects files that are not ELF64 little-endian', () => {
    expect(() => new ElfFile(Buffer.from('#!/bin/sh\necho hi\n'.padEnd(80)), 'x.sh')).toThrow(ElfError);
  });

  test('finds local and global functions in .symtab with their sizes', () => {
    const elf = readElf(prog);
    expect(elf.type).toBe(ET_DYN); // gcc builds position-independent executables here
    const byName = new Map(elf.functions().map((f) => [f.name, f]));
    for (const name of ['helper', 'target', 'main']) {
      const m = new RegExp(`^\\s*\\d+: ([0-9a-f]+)\\s+(\\d+) FUNC\\s+\\w+\\s+\\w+\\s+\\d+ ${name}$`, 'm').exec(readelf(['-sW'], prog));
      expect(m, name).not.toBeNull();
      expect(byName.get(name)?.value).toBe(BigInt('0x' + m![1]));
      expect(byName.get(name)?.size).toBe(BigInt(m![2]));
    }
    // Undefined (imported) functions are not ours to probe.
    expect(byName.has('__libc_start_main')).toBe(false);
    expect(elf.lookupFunction('target')).toEqual(byName.get('target'));
    const t = byName.get('target')!;
    expect(elf.functionAt(t.value + 3n)?.name).toBe('target');
  });

  test('turns virtual addresses into file offsets through PT_LOAD', () => {
    const elf = readElf(prog);
    const text = elf.section('.text')!;
    expect(elf.fileOffset(text.addr)).toBe(text.offset);
    expect(elf.fileOffset(text.addr + 5n)).toBe(text.offset + 5);
    expect(elf.fileOffset(0xffff_ffff_0000n)).toBeNull();
  });

  test('reads the stored bytes of a data symbol; none for .bss, undefined or missing ones', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dtrace-elf-'));
    const src = path.join(dir, 'd.c');
    writeFileSync(src, 'const unsigned long answer = 0x030b02f0;\nunsigned long zeroed[4];\nint main(void) { return (int)zeroed[0]; }\n');
    const r = spawnSync('gcc', ['-O0', '-o', path.join(dir, 'd'), src], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    const elf = readElf(path.join(dir, 'd'));
    expect(elf.objectBytes('answer')?.readBigUInt64LE(0)).toBe(0x030b02f0n);
    expect(elf.objectBytes('zeroed')).toBeUndefined();
    expect(elf.objectBytes('main')).toBeUndefined(); // a function, not data
    expect(elf.objectBytes('stdin')).toBeUndefined();
  });

  test('lists an executable\'s initializers in the order they run: .init, then .init_array', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dtrace-elf-'));
    const src = path.join(dir, 'c.c');
    writeFileSync(src, '__attribute__((constructor)) static void first(void) {}\n__attribute__((constructor)) static void second(void) {}\nint main(void) { return 0; }\n');
    const file = path.join(dir, 'c');
    const r = spawnSync('gcc', ['-O0', '-o', file, src], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    const elf = readElf(file);
    const inits = elf.initializers();
    expect(inits[0]).toBe(elf.section('.init')!.addr);
    // gcc runs constructors of one file in the order they are written, after crtbegin's frame_dummy.
    expect(inits.slice(-2)).toEqual([elf.lookupFunction('first')!.value, elf.lookupFunction('second')!.value]);
  });

  test('names the program interpreter', () => {
    expect(readElf(prog).interpreter()).toMatch(/ld-linux-x86-64\.so\.2$/);
  });

  test('reads python3\'s SDT notes as readelf does', (ctx) => {
    if (!existsSync(PYTHON)) ctx.skip(`${PYTHON} is not installed`);
    const elf = readElf(PYTHON);
    const notes = elf.sdtNotes();
    const text = readelf(['-n'], PYTHON);
    const expected = [...text.matchAll(/Provider: (\S+)\n\s+Name: (\S+)\n\s+Location: 0x([0-9a-f]+), Base: 0x[0-9a-f]+, Semaphore: 0x([0-9a-f]+)\n\s+Arguments: ([^\n]*)/g)]
      .map((m) => ({ provider: m[1], name: m[2], pc: BigInt('0x' + m[3]), semaphore: BigInt('0x' + m[4]), args: m[5] }));
    expect(expected.length).toBeGreaterThan(0);
    expect(notes.map(({ pcAt: _, ...n }) => n)).toEqual(expected);
    // Debian's python3 has no .symtab: its functions come from .dynsym.
    expect(elf.lookupFunction('_PyEval_EvalFrameDefault')).toBeDefined();
  });
});
