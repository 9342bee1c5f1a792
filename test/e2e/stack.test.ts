// Stacks and symbols on the real kernel: kernel stacks from a scheduler tracepoint, user stacks of
// a program built here (test/e2e/progs/stack-prog.c), and the symbol actions on profile samples.
import { beforeAll, describe, expect, test } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { KernelSymbols, parseKallsyms } from '../../src/sys/symbols.js';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, dtrace, gcc, kernelUnavailable } from '../helpers/run.js';

const skip = kernelUnavailable();
let prog = '';

/** A frame line of a stack as DTrace prints it: 14 spaces, then module`function[+0xoff] or hex. */
const FRAME = /^ {14}(\S+`[\w.$@]+(\+0x[0-9a-f]+)?|\S+`0x[0-9a-f]+|0x[0-9a-f]+)$/;

/** The stacks of `@[stack()] = count()` output: each a list of frames and its count. */
function stacks(stdout: string): { frames: string[]; count: number }[] {
  const out: { frames: string[]; count: number }[] = [];
  let frames: string[] = [];
  for (const line of stdout.split('\n')) {
    if (FRAME.test(line)) frames.push(line.trim());
    else if (/^ {2,}\d+$/.test(line) && frames.length > 0) out.push({ frames, count: Number(line.trim()) }), frames = [];
    else frames = [];
  }
  return out;
}

describe.skipIf(skip)(`stacks and symbols${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(() => {
    const work = mkdtempSync(path.join(tmpdir(), 'dtrace-stack-'));
    prog = path.join(work, 'stackprog');
    gcc(path.join(ROOT, 'test/e2e/progs/stack-prog.c'), prog, ['-fno-omit-frame-pointer']);
  });

  test('@[ustack()] of a program\'s getppid calls shows the calling function and main, counted', () => {
    const r = dtrace(['-n', 'syscall::getppid:entry /pid == $target/ { @[ustack()] = count(); }', '-c', prog]);
    expect(r.status, r.stderr).toBe(0);
    const s = stacks(r.stdout);
    expect(s, r.stdout).toHaveLength(1);
    expect(s[0].count).toBe(3);
    expect(s[0].frames[0]).toMatch(/^stackprog`ask_parent\+0x[0-9a-f]+$/);
    expect(s[0].frames[1]).toMatch(/^stackprog`main\+0x[0-9a-f]+$/);
    // The layout: a blank line, then the frames, then the count right-aligned in 17 columns.
    expect(r.stdout).toMatch(/\n\n {14}stackprog`ask_parent\+0x[0-9a-f]+\n {14}stackprog`main\+0x[0-9a-f]+\n(.*\n)* {16}3\n/);
  });

  test('ustack() as a record prints the frames after the probe line, then a blank line', () => {
    const r = dtrace(['-n', 'syscall::getppid:entry /pid == $target/ { ustack(2); }', '-c', `${prog} 1`]);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    const at = lines.findIndex((l) => /getppid:entry $/.test(l));
    expect(at, r.stdout).toBeGreaterThan(0);
    expect(lines[at + 1]).toMatch(/^ {14}stackprog`ask_parent\+0x[0-9a-f]+$/);
    expect(lines[at + 2]).toMatch(/^ {14}stackprog`main\+0x[0-9a-f]+$/);
    expect(lines[at + 3]).toBe('');
  });

  test('jstack() is a user stack on Linux', () => {
    const r = dtrace(['-qn', 'syscall::getppid:entry /pid == $target/ { @[jstack(1)] = count(); }', '-c', `${prog} 2`]);
    expect(r.status, r.stderr).toBe(0);
    expect(stacks(r.stdout).map((s) => [s.frames.length, s.frames[0].replace(/\+.*/, ''), s.count])).toEqual([[1, 'stackprog`ask_parent', 2]]);
  });

  test('@[stack()] on a scheduler tracepoint shows real kernel functions', () => {
    const r = dtrace(['-qn', 'sched:::off-cpu { @[stack()] = count(); } tick-1s { exit(0); }']);
    expect(r.status, r.stderr).toBe(0);
    const s = stacks(r.stdout);
    expect(s.length, r.stdout).toBeGreaterThan(0);
    for (const st of s) for (const f of st.frames) expect(f).toMatch(/^vmlinux`|^[\w-]+`|^0x/);
    // Every switch goes through the scheduler.
    expect(s.some((st) => st.frames.some((f) => /^vmlinux`(__)?schedule\+0x/.test(f)))).toBe(true);
  });

  test('stackframes limits the frames of stack(); stackindent sets their indentation', () => {
    const r = dtrace(['-qx', 'stackframes=2', '-x', 'stackindent=3', '-n', 'sched:::off-cpu { @[stack()] = count(); } tick-1s { exit(0); }']);
    expect(r.status, r.stderr).toBe(0);
    const s = stacks(r.stdout.replace(/^ {3}(?=\S+`)/gm, ' '.repeat(14)));
    expect(s.length, r.stdout).toBeGreaterThan(0);
    expect(Math.max(...s.map((st) => st.frames.length))).toBeLessThanOrEqual(2);
    expect(r.stdout).toMatch(/^ {3}vmlinux`\w/m);
  });

  test('func() keys of profile samples name kernel functions, one entry per function', () => {
    const r = dtrace(['-qn', 'profile-997 /arg0/ { @[func(arg0)] = count(); @m[mod(arg0)] = count(); } tick-1s { exit(0); }']);
    expect(r.status, r.stderr).toBe(0);
    const keys = [...r.stdout.matchAll(/^ {2}(\S+)\s+\d+$/gm)].map((m) => m[1]);
    expect(keys.length, r.stdout).toBeGreaterThan(0);
    expect(keys.filter((k) => k.includes('`')).every((k) => /^[\w-]+`[\w.]+$/.test(k))).toBe(true);
    expect(keys.filter((k) => k.includes('`')).length).toBe(new Set(keys.filter((k) => k.includes('`'))).size);
    expect(keys).toContain('vmlinux');
  });

  test('ufunc(), umod() and uaddr() of a spinning program name its function and object', () => {
    const r = dtrace(['-qn', 'profile-997 /pid == $target && arg1/ { @f[ufunc(arg1)] = count(); @m[umod(arg1)] = count(); @a[uaddr(arg1)] = count(); }', '-c', `${prog} 0 500`]);
    expect(r.status, r.stderr).toBe(0);
    const rows = [...r.stdout.matchAll(/^ {2}(\S+)\s+(\d+)$/gm)].map((m) => [m[1], Number(m[2])] as const);
    const total = (re: RegExp) => rows.filter(([k]) => re.test(k)).reduce((n, [, c]) => n + c, 0);
    // Every sample adds to all three aggregations, so their counts agree whatever the load.
    const inSpin = total(/^stackprog`spin_here$/);
    expect(inSpin, r.stdout).toBeGreaterThan(10);
    expect(total(/^stackprog`spin_here\+0x[0-9a-f]+$/)).toBe(inSpin);
    expect(total(/^stackprog$/)).toBe(total(/^stackprog`\w+$/));
  });

  test('printa %k prints a stack key with the conversion\'s indentation', () => {
    const r = dtrace(['-qn', 'sched:::off-cpu { @[stack(1)] = count(); } tick-1s { printa("%-2k%@u|\\n", @); exit(0); }']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\n {2}vmlinux`\w+(\+0x[0-9a-f]+)?\n\d+\|\n/);
  });

  test('a program whose file was replaced by a FIFO is still symbolized, and dtrace does not block', () => {
    // Anyone can swap the path /proc/PID/maps shows for a named pipe; opening it would block dtrace
    // for ever. Symbols come from the kernel's handle on the mapping instead.
    const dir = mkdtempSync(path.join(tmpdir(), 'dtrace-fifo-'));
    const evil = path.join(dir, 'evil');
    copyFileSync(prog, evil);
    chmodSync(evil, 0o755);
    const child = spawn(evil, ['0', '4000'], { stdio: 'ignore' });
    try {
      rmSync(evil);
      execFileSync('mkfifo', [evil]);
      const r = dtrace(['-qn', `profile-997 /pid == ${child.pid} && arg1/ { @[ufunc(arg1)] = count(); } tick-1s { exit(0); }`], { timeoutMs: 20000 });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^ {2}evil`spin_here\s+\d+$/m);
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// Moved from test/unit/stacks.test.ts: it reads this machine's /proc/kallsyms.
describe('the live kernel symbol table', () => {
  test('the real /proc/kallsyms resolves a kernel function', (ctx) => {
    const text = readFileSync('/proc/kallsyms', 'utf8');
    const k = new KernelSymbols(parseKallsyms(text));
    const addr = parseKallsyms(text).find((s) => s.name === 'do_syscall_64')?.addr;
    if (addr === undefined || addr === 0n) return ctx.skip('/proc/kallsyms hides addresses from this user');
    expect(k.lookup(addr + 4n)?.name).toBe('do_syscall_64');
  });
});
