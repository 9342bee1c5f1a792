import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { instructionOffsets } from '../../src/sys/x86.js';
import { readElf } from '../../src/sys/elf.js';
import { announceExec, mappedObjects, objectsMatching, parseOffset, PidProvider, pidOf } from '../../src/providers/pid.js';
import { ProbeRegistry } from '../../src/providers/registry.js';

let prog = '';
const children: ChildProcess[] = [];

beforeAll(() => {
  const dir = mkdtempSync(path.join(tmpdir(), 'dtrace-pidu-'));
  const src = path.join(dir, 'w.c');
  writeFileSync(src, '#include <unistd.h>\nint target(int x) { return x * 2; }\nint main(void) { pause(); return target(1); }\n');
  prog = path.join(dir, 'w');
  const r = spawnSync('gcc', ['-O0', '-o', prog, src], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
});
afterAll(() => children.forEach((c) => c.kill('SIGKILL')));

async function running(): Promise<number> {
  const c = spawn(prog, [], { stdio: 'ignore' });
  children.push(c);
  await new Promise((r) => setTimeout(r, 200));
  return c.pid!;
}

describe('pid provider names', () => {
  test('pid<N> with a positive decimal N', () => {
    expect(pidOf('pid123', 'pid')).toBe(123);
    expect(pidOf('pid', 'pid')).toBeNull();
    expect(pidOf('pid0', 'pid')).toBeNull();
    expect(pidOf('pid12x', 'pid')).toBeNull();
    expect(pidOf('pid*', 'pid')).toBeNull();
  });

  test('offsets are hexadecimal, with or without 0x', () => {
    expect(parseOffset('10')).toBe(16n);
    expect(parseOffset('0x1f')).toBe(31n);
    expect(parseOffset('entry')).toBeNull();
  });
});

describe('PidProvider on a running process', () => {
  test('maps a.out to the executable and libraries to their basenames', async () => {
    const pid = await running();
    const objects = mappedObjects(pid);
    expect(objects.filter((o) => o.main).map((o) => o.path)).toEqual([prog]);
    expect(objectsMatching(objects, 'a.out').map((o) => o.module)).toEqual(['w']);
    expect(objectsMatching(objects, 'libc.so.*').map((o) => o.module)).toEqual(['libc.so.6']);
  });

  test('entry, return and offset probes at file offsets, named by the function', async () => {
    const pid = await running();
    const p = new PidProvider();
    const elf = readElf(prog);
    const target = elf.lookupFunction('target')!;
    const probes = p.provide({ provider: `pid${pid}`, module: 'a.out', function: 'target', name: '' });
    // entry, return, then (the function named exactly) every instruction by its offset.
    const offsets = instructionOffsets(elf.data.subarray(elf.fileOffset(target.value)!, elf.fileOffset(target.value)! + Number(target.size)));
    expect(probes.map((x) => `${x.provider}:${x.module}:${x.func}:${x.name}`)).toEqual(
      [`pid${pid}:w:target:entry`, `pid${pid}:w:target:return`, ...offsets.map((o) => `pid${pid}:w:target:${o.toString(16)}`)]);
    expect(probes[0].attach).toEqual({ kind: 'uprobe', path: prog, offset: elf.fileOffset(target.value), retprobe: false, pid });
    expect(probes[1].attach).toEqual({ kind: 'uprobe', path: prog, offset: elf.fileOffset(target.value), retprobe: true, pid });
    // The first six in registers, arg6..arg9 on the stack above the return address.
    expect(probes[0].args.map((a) => a.from)).toEqual([
      ...['rdi', 'rsi', 'rdx', 'rcx', 'r8', 'r9'].map((reg) => ({ kind: 'register', reg, size: 8, signed: false })),
      ...[8, 16, 24, 32].map((disp) => ({ kind: 'memory', reg: 'rsp', disp, size: 8, signed: false })),
    ]);
    expect(probes[1].args.map((a) => a.from)).toEqual([{ kind: 'constant', value: 0n }, { kind: 'register', reg: 'rax', size: 8, signed: false }]);
    const off = p.provide({ provider: `pid${pid}`, module: 'a.out', function: 'target', name: '0x4' });
    expect(off.map((x) => x.name)).toEqual(['4']);
    expect(off[0].attach).toMatchObject({ offset: elf.fileOffset(target.value + 4n), retprobe: false });
    // Past the end of the function: no probe.
    expect(p.provide({ provider: `pid${pid}`, module: 'a.out', function: 'target', name: 'ffff' })).toEqual([]);
  });

  test('libc functions by exact name and by glob; dtrace itself and missing processes give none', async () => {
    const pid = await running();
    const p = new PidProvider();
    const malloc = p.provide({ provider: `pid${pid}`, module: 'libc.so.6', function: 'malloc', name: 'entry' });
    expect(malloc.map((x) => `${x.module}:${x.func}:${x.name}`)).toEqual(['libc.so.6:malloc:entry']);
    const globbed = p.provide({ provider: `pid${pid}`, module: 'libc.so.6', function: 'mallo?', name: 'entry' });
    expect(globbed.length).toBeGreaterThanOrEqual(1);
    expect(p.provide({ provider: `pid${process.pid}`, module: '', function: 'main', name: 'entry' })).toEqual([]);
    expect(p.provide({ provider: 'pid999999999', module: '', function: 'main', name: 'entry' })).toEqual([]);
  });

  test('the registry matches a.out and 0x descriptions to the probes they create', async () => {
    const pid = await running();
    const registry = new ProbeRegistry([new PidProvider()]);
    const spec = { provider: `pid${pid}`, module: 'a.out', function: 'target', name: '0x0' };
    const [probe] = registry.match(spec);
    expect(`${probe.provider}:${probe.module}:${probe.func}:${probe.name}`).toBe(`pid${pid}:w:target:0`);
    expect(registry.match({ ...spec, module: 'w', name: '0' })).toEqual([probe]);
    expect(registry.provider(`pid${pid}`)?.name).toBe('pid');
  });

  test('a process stopped before exec: probes go on the program it will run', async () => {
    // As -c does: a shell that stops itself, then execs the command.
    const sh = spawn('/bin/sh', ['-c', 'kill -STOP $$ && exec "$@"', prog, prog], { stdio: 'ignore' });
    children.push(sh);
    await new Promise((r) => setTimeout(r, 200));
    announceExec(sh.pid!, prog);
    const objects = mappedObjects(sh.pid!);
    expect(objects[0]).toEqual({ path: prog, module: 'w', main: true });
    expect(objects.map((o) => o.module)).toContain('libc.so.6');
    const p = new PidProvider();
    expect(p.provide({ provider: `pid${sh.pid}`, module: 'a.out', function: 'target', name: 'entry' })).toHaveLength(1);
  });
});
