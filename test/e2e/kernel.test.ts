// The foundation's acceptance, run as a user runs dtrace, on the real kernel.
import { beforeAll, describe, expect, test } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, dtrace, dtraceAsync, gcc, kernelUnavailable } from '../helpers/run.js';
import { onlineCpus } from '../helpers/run.js';

const skip = kernelUnavailable();
let work = '';

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
        const r = spawnSync('taskset', ['-c', '1', path.join(ROOT, 'bin/dtrace'), '-qn',
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
