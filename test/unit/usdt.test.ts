import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, test } from 'vitest';
import { parseSdtArg, parseSdtArgs, sdtProbeName, UsdtProvider } from '../../src/providers/usdt.js';
import { readElf } from '../../src/sys/elf.js';

describe('SDT argument specifications', () => {
  test('registers by any of their names, with size and signedness', () => {
    expect(parseSdtArg('-4@%edi')).toEqual({ kind: 'register', reg: 'rdi', size: 4, signed: true });
    expect(parseSdtArg('8@%rax')).toEqual({ kind: 'register', reg: 'rax', size: 8, signed: false });
    expect(parseSdtArg('2@%r12w')).toEqual({ kind: 'register', reg: 'r12', size: 2, signed: false });
    expect(parseSdtArg('-1@%sil')).toEqual({ kind: 'register', reg: 'rsi', size: 1, signed: true });
    expect(parseSdtArg('%rbx')).toEqual({ kind: 'register', reg: 'rbx', size: 8, signed: false });
  });

  test('memory at a register plus displacement', () => {
    expect(parseSdtArg('8@-16(%rbp)')).toEqual({ kind: 'memory', reg: 'rbp', disp: -16, size: 8, signed: false });
    expect(parseSdtArg('-4@112(%rsp)')).toEqual({ kind: 'memory', reg: 'rsp', disp: 112, size: 4, signed: true });
    expect(parseSdtArg('4@(%rdi)')).toEqual({ kind: 'memory', reg: 'rdi', disp: 0, size: 4, signed: false });
  });

  test('constants, wrapped to their size', () => {
    expect(parseSdtArg('4@$5')).toEqual({ kind: 'constant', value: 5n });
    expect(parseSdtArg('-4@$-1')).toEqual({ kind: 'constant', value: -1n });
    expect(parseSdtArg('1@$-1')).toEqual({ kind: 'constant', value: 255n });
    expect(parseSdtArg('8@$0x10')).toEqual({ kind: 'constant', value: 16n });
  });

  test('forms dtrace cannot read give no value rather than a wrong one', () => {
    expect(parseSdtArg('8@counter(%rip)')).toEqual({ kind: 'none' });
    expect(parseSdtArg('4@8(%rax,%rbx,4)')).toEqual({ kind: 'none' });
    expect(parseSdtArg('1@%ah')).toEqual({ kind: 'none' });
  });

  test('a whole specification string, arg0 first', () => {
    expect(parseSdtArgs('8@%rbp 8@%r12 -4@%eax').map((a) => a.kind)).toEqual(['register', 'register', 'register']);
    expect(parseSdtArgs('')).toEqual([]);
  });

  test('probe names spell __ as -', () => {
    expect(sdtProbeName('function__entry')).toBe('function-entry');
    expect(sdtProbeName('import__find__load__start')).toBe('import-find-load-start');
    expect(sdtProbeName('line')).toBe('line');
  });
});

const PYTHON = '/usr/bin/python3';

describe.skipIf(!existsSync(PYTHON))(`UsdtProvider on a running python3${existsSync(PYTHON) ? '' : ` (skipped: ${PYTHON} is not installed)`}`, () => {
  let child: ChildProcess | null = null;
  afterAll(() => child?.kill('SIGKILL'));

  test('names its providers NAME<PID>, leaving pid<PID> to the pid provider', () => {
    const p = new UsdtProvider();
    expect(p.ownsProviderName('python1234')).toBe(true);
    expect(p.ownsProviderName('pid1234')).toBe(false);
    // A glob, or a bare name a program on the system provides, names it in every process.
    expect(p.ownsProviderName('python*')).toBe(true);
    expect(p.ownsProviderName('python')).toBe(true); // /usr/bin/python3 is in $PATH
    expect(p.ownsProviderName('nosuchprovider')).toBe(false);
    expect(new UsdtProvider(new Set(['python'])).ownsProviderName('python')).toBe(false);
  });

  test('makes one probe per note, at its file offset, with its semaphore and arguments', async () => {
    child = spawn(PYTHON, ['-c', 'import time; time.sleep(30)'], { stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 300));
    const p = new UsdtProvider();
    const probes = p.provide({ provider: `python${child.pid}`, module: '', function: '', name: 'function-entry' });
    expect(probes).toHaveLength(1);
    const [probe] = probes;
    expect(probe.provider).toBe(`python${child.pid}`);
    expect(probe.module).toBe('python3.11');
    expect(probe.name).toBe('function-entry');
    const elf = readElf(PYTHON);
    const note = elf.sdtNotes().find((n) => n.name === 'function__entry')!;
    // (alsoRaise: python 3.11's function-entry also holds the line probe's semaphore.)
    expect(probe.attach).toMatchObject({
      kind: 'uprobe', path: '/usr/bin/python3.11', offset: elf.fileOffset(note.pc), retprobe: false,
      pid: child.pid, refCtrOffset: elf.fileOffset(note.semaphore),
    });
    expect(probe.args.map((a) => a.from)).toEqual(parseSdtArgs(note.args));
    expect(p.provide({ provider: `python${child.pid}`, module: '', function: '', name: '' })).toHaveLength(8);
    expect(p.provide({ provider: `python${child.pid}`, module: 'libc.so.6', function: '', name: '' })).toHaveLength(0);
    expect(p.provide({ provider: `nosuch${child.pid}`, module: '', function: '', name: '' })).toHaveLength(0);
  });
});
