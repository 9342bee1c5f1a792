// The foundation's acceptance, run as a user runs dtrace, on the real kernel.
import { beforeAll, describe, expect, test } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, dtrace, dtraceAsync, gcc, kernelUnavailable } from '../helpers/run.js';
import { onlineCpus } from '../helpers/run.js';

const skip = kernelUnavailable();
let work = '';
let getppid = '';

/** BPF program ids held by a process, from its fdinfo. */
function progIds(pid: number): number[] {
  const ids: number[] = [];
  const dir = `/proc/${pid}/fdinfo`;
  for (const fd of readdirSync(dir)) {
    try {
      const m = /prog_id:\s*(\d+)/.exec(readFileSync(path.join(dir, fd), 'utf8'));
      if (m) ids.push(Number(m[1]));
    } catch { /* closed meanwhile */ }
  }
  return ids;
}

/** Does any process still hold a BPF program or perf event open for one of these ids? */
function heldAnywhere(ids: number[]): boolean {
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (progIds(Number(p)).some((id) => ids.includes(id))) return true;
    } catch { /* gone */ }
  }
  return false;
}

/** Is a BPF program with this id still loaded in the kernel? (walks the kernel's program ids) */
async function loaded(id: number): Promise<boolean> {
  const { native } = await import('../../src/device/native.js');
  for (let next = native.progGetNextId(0); next !== null; next = native.progGetNextId(next)) {
    if (next === id) return true;
  }
  return false;
}

describe.skipIf(skip)(`kernel${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(() => {
    work = mkdtempSync(path.join(tmpdir(), 'dtrace-test-'));
    getppid = path.join(work, 'getppid');
    gcc(path.join(ROOT, 'test/e2e/progs/getppid.c'), getppid);
  });

  test('BEGIN trace prints the header and the record, and says what matched', () => {
    const r = dtrace(['-n', 'BEGIN { trace("hello"); exit(0); }']);
    expect(r.stderr).toBe("dtrace: description 'BEGIN ' matched 1 probe\n");
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('CPU     ID                    FUNCTION:NAME');
    expect(lines[1]).toMatch(/^ {2}\d      1                           :BEGIN   hello {28}$/);
    expect(lines.slice(2)).toEqual(['', '']);
    expect(r.status).toBe(0);
  });

  test('printf widths and conversions', () => {
    const r = dtrace(['-qn', 'BEGIN { printf("%d %s %x|%5d|%-3s|\\n", 42, "ok", 255, 7, "a"); exit(0); }']);
    expect(r.stdout).toBe('42 ok ff|    7|a  |\n\n');
    expect(r.status).toBe(0);
  });

  test('counts a program\'s getppid calls by execname', async () => {
    const d = dtraceAsync(['-qn', 'BEGIN { printf("ready\\n"); } syscall::getppid:entry { @calls[execname] = count(); }']);
    await d.waitFor(/^ready$/m);
    spawnSync(getppid, ['1000']);
    d.child.kill('SIGINT');
    const r = await d.done;
    expect(r.status, r.stderr).toBe(0);
    const m = /^\s+getppid\s+(\d+)$/m.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThanOrEqual(1000);
  });

  test('syscall return: arg0 is the return value', async () => {
    const d = dtraceAsync(['-qn', `BEGIN { printf("ready\\n"); } syscall::getppid:return /execname == "getppid"/ { @r[arg0 == ${process.pid}] = count(); }`]);
    await d.waitFor(/^ready$/m);
    spawnSync(getppid, ['10']);
    d.child.kill('SIGINT');
    const r = await d.done;
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^\s+1\s+10$/m);
  });

  test('profile-N fires on every CPU at about its rate', () => {
    // This kernel's idle CPUs take no timer samples (bpftrace sees the same), so keep each busy.
    const cpus = onlineCpus();
    const spin = cpus.map((c) => spawn('taskset', ['-c', String(c), 'sh', '-c', 'while :; do :; done'], { stdio: 'ignore' }));
    try {
      const r = dtrace(['-qn', 'profile-97 { @[cpu] = count(); } tick-1s { exit(0); }']);
      expect(r.status, r.stderr).toBe(0);
      const counts = new Map([...r.stdout.matchAll(/^\s+(\d+)\s+(\d+)$/gm)].map((m) => [Number(m[1]), Number(m[2])]));
      for (const c of cpus) {
        expect(counts.get(c), r.stdout).toBeGreaterThan(97 * 0.7);
        expect(counts.get(c), r.stdout).toBeLessThan(97 * 1.3);
      }
    } finally {
      for (const p of spin) p.kill('SIGKILL');
    }
  });

  test('tick-N fires on one CPU only', () => {
    const r = dtrace(['-qn', 'tick-100 { @[cpu] = count(); } tick-1s { exit(0); }']);
    expect(r.status, r.stderr).toBe(0);
    const rows = [...r.stdout.matchAll(/^\s+(\d+)\s+(\d+)$/gm)];
    expect(rows.length, r.stdout).toBe(1);
    expect(Number(rows[0][2])).toBeGreaterThan(70);
    expect(Number(rows[0][2])).toBeLessThan(130);
  });

  test('a syntax error is DTrace\'s message and exit status 1', () => {
    const r = dtrace(['-n', 'BEGIN { trace(']);
    expect(r.stderr).toMatch(/^dtrace: invalid probe specifier BEGIN \{ trace\(: syntax error near /);
    expect(r.stderr).not.toMatch(/at .*\.js/);
    expect(r.status).toBe(1);
  });

  test('an unknown option prints usage and exits 2', () => {
    const r = dtrace(['-K']);
    expect(r.stderr).toMatch(/^dtrace: illegal option -- K\nUsage: dtrace /);
    expect(r.status).toBe(2);
  });

  test('a description that matches nothing', () => {
    const r = dtrace(['-n', 'syscall::nosuch:entry { }']);
    expect(r.stderr).toBe('dtrace: invalid probe specifier syscall::nosuch:entry { }: probe description syscall::nosuch:entry does not match any probes\n');
    expect(r.status).toBe(1);
  });

  test('fbt says plainly why it matches nothing on a kernel without kprobes', (ctx) => {
    if (existsSync('/sys/bus/event_source/devices/kprobe')) ctx.skip('this kernel has kprobes (the kprobe PMU): fbt is not refused here');
    const r = dtrace(['-n', 'fbt::vfs_read:entry']);
    expect(r.stderr).toMatch(/does not match any probes: fbt provider: this kernel has no kprobes/);
    expect(r.status).toBe(1);
  });

  test('-S lists DIF instructions', () => {
    const r = dtrace(['-S', '-n', 'BEGIN { trace(1 + 2); exit(0); }']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/setx\s+DT_INTEGER\[0\], %r1/);
    expect(r.stderr).toMatch(/add\s+%r1, %r2, %r1/);
    expect(r.stderr).toMatch(/ret\s+%r1/);
  });

  test('-l lists probes in DTrace\'s columns', () => {
    const r = dtrace(['-l', '-n', 'syscall::getppid:entry']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^ {3}ID {3}PROVIDER {12}MODULE {26}FUNCTION NAME\n/);
    expect(r.stdout).toMatch(/^\s*\d+\s+syscall\s+vmlinux\s+getppid entry$/m);
    const all = dtrace(['-l']);
    expect(all.stdout.split('\n').length).toBeGreaterThan(700);
  });

  test('BEGIN\'s records print first, even when other probes fire on a CPU whose buffer is read first', (ctx) => {
    if (onlineCpus().length < 2) ctx.skip('one online CPU: one buffer, nothing to order');
    // dtrace (so BEGIN) on CPU 1; CPU 0 kept busy, so profile fires there at once, and CPU 0's
    // buffer is read before CPU 1's.
    const spin = spawn('taskset', ['-c', '0', 'sh', '-c', 'while :; do :; done'], { stdio: 'ignore' });
    try {
      for (let i = 0; i < 3; i++) {
        const r = spawnSync('taskset', ['-c', '1', process.execPath, path.join(ROOT, 'bin/dtrace'), '-qn',
          'BEGIN { printf("begin\\n"); } profile-4999 /cpu == 0/ { printf("tick\\n"); } profile-4999 /cpu == 0 && ++n == 50/ { exit(0); }'],
          { encoding: 'utf8', cwd: ROOT, timeout: 30_000 });
        expect(r.status, r.stderr).toBe(0);
        const lines = r.stdout.split('\n').filter(Boolean);
        expect(lines.length).toBeGreaterThan(1);
        expect(lines[0]).toBe('begin');
      }
    } finally {
      spin.kill('SIGKILL');
    }
  });

  test('a reader that goes away (| head) ends dtrace quietly, status 141, nothing left in the kernel', async () => {
    const d = dtraceAsync(['-qn', 'tick-1ms { printf("%d\\n", i++); }']);
    await d.waitFor(/\n/);
    const ids = progIds(d.child.pid!);
    expect(ids.length).toBeGreaterThanOrEqual(1);
    d.child.stdout.destroy(); // the reader closes its end of the pipe
    const r = await d.done;
    expect(r.status).toBe(141);
    expect(r.stderr).toBe("");
    expect(heldAnywhere(ids)).toBe(false);
  });

  for (const how of ['exit', 'SIGINT', 'SIGKILL'] as const) {
    test(`nothing is left in the kernel after dtrace ends by ${how}`, async () => {
      const prog = how === 'exit' ? 'tick-2s { exit(0); }' : 'tick-60s { exit(0); }';
      const d = dtraceAsync(['-qn', `syscall::getppid:entry { @ = count(); } profile-99 { @p = count(); } ${prog}`]);
      let ids: number[] = [];
      for (let i = 0; i < 50 && ids.length < 3; i++) {
        await new Promise((r) => setTimeout(r, 100));
        ids = progIds(d.child.pid!);
      }
      expect(ids.length).toBeGreaterThanOrEqual(3);
      if (how !== 'exit') d.child.kill(how);
      const r = await d.done;
      if (how === 'SIGINT') expect(r.status).toBe(0);
      expect(heldAnywhere(ids)).toBe(false);
      // Programs are freed after an RCU grace period.
      let left = ids;
      for (let i = 0; i < 50 && left.length > 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const still: number[] = [];
        for (const id of left) if (await loaded(id)) still.push(id);
        left = still;
      }
      expect(left).toEqual([]);
    });
  }
});
