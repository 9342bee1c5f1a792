// The sched provider on the real kernel: on-cpu (sched_switch, in the arriving thread's context)
// and off-cpu, with a workload built here (test/e2e/progs/sched-spin.c) that spins for 20 ms of
// CPU time and sleeps 30 ms, a number of rounds, printing its pid first and its CPU time last.
import { beforeAll, describe, expect, test } from 'vitest';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, dtrace, gcc, kernelUnavailable } from '../helpers/run.js';

const skip = kernelUnavailable();
let prog = '';

/** The pid and CPU time (ns) the workload printed. */
function workload(stdout: string): { pid: number; cpuNs: number } {
  const pid = /^pid (\d+)$/m.exec(stdout), cpu = /^cpu (\d+)$/m.exec(stdout);
  if (!pid || !cpu) throw new Error(`the workload did not report itself:\n${stdout}`);
  return { pid: Number(pid[1]), cpuNs: Number(cpu[1]) };
}

describe.skipIf(skip)(`sched provider${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(() => {
    prog = path.join(mkdtempSync(path.join(tmpdir(), 'dtrace-sched-')), 'schedspin');
    gcc(path.join(ROOT, 'test/e2e/progs/sched-spin.c'), prog);
  });

  test('dtrace -l -P sched lists on-cpu, off-cpu, sleep and wakeup, and only sched probes DTrace has', () => {
    const r = dtrace(['-l', '-P', 'sched']);
    expect(r.status, r.stderr).toBe(0);
    const names = r.stdout.split('\n').slice(1).filter(Boolean).map((l) => l.trim().split(/\s+/).slice(1).join(' '));
    expect(names).toEqual(expect.arrayContaining(['sched vmlinux off-cpu', 'sched vmlinux on-cpu', 'sched vmlinux sleep', 'sched vmlinux wakeup']));
    // The rest come only where the kernel has their tracepoints (test/e2e/sched-more.test.ts).
    for (const n of names) expect(['off-cpu', 'on-cpu', 'sleep', 'wakeup', 'preempt', 'change-pri', 'remain-cpu']).toContain(n.split(' ')[2]);
  });

  test('on-cpu fires with the arriving thread as its context: pid, tid, execname, curthread', () => {
    const r = dtrace(['-qn', 'sched:::on-cpu /execname == "schedspin"/ { @[pid, tid, curthread->pid, curpsinfo->pr_pid] = count(); }', '-c', `${prog} 5`]);
    expect(r.status, r.stderr).toBe(0);
    const { pid } = workload(r.stdout);
    const rows = r.stdout.split('\n').map((l) => l.trim().split(/\s+/).map(Number)).filter((f) => f.length === 5);
    // One thread: every firing has pid == tid == curthread->pid == curpsinfo->pr_pid, the workload's.
    expect(rows, r.stdout).toHaveLength(1);
    expect(rows[0].slice(0, 4)).toEqual([pid, pid, pid, pid]);
    expect(rows[0][4]).toBeGreaterThan(0);
  });

  test('self-> set at on-cpu is read at off-cpu by the same thread: its on-CPU time', () => {
    const r = dtrace(['-qn', `sched:::on-cpu { self->ts = timestamp; }
      sched:::off-cpu /self->ts/ { @[execname] = sum(timestamp - self->ts); self->ts = 0; }`, '-c', `${prog} 10`]);
    expect(r.status, r.stderr).toBe(0);
    const { cpuNs } = workload(r.stdout);
    const row = /^\s+schedspin\s+(\d+)$/m.exec(r.stdout);
    expect(row, r.stdout).not.toBeNull();
    const onCpu = Number(row![1]);
    // It spins for 200 ms of CPU and sleeps 300 ms: the sum is its CPU time (plus its exit), not
    // its time asleep.
    expect(onCpu).toBeGreaterThan(0.8 * cpuNs);
    expect(onCpu).toBeLessThan(1.3 * cpuNs + 20e6);
  });

  test('sched:::on-cpu /pid == $target/ sees the -c process come back on CPU after each sleep', () => {
    const r = dtrace(['-qn', `sched:::off-cpu /pid == $target/ { self->off = timestamp; }
      sched:::on-cpu /pid == $target && self->off/ { @n = count(); @asleep = sum(timestamp - self->off); self->off = 0; }
      END { printa("back %@d\\n", @n); printa("asleep %@d\\n", @asleep); printf("$target %d\\n", $target); }`, '-c', `${prog} 3`]);
    expect(r.status, r.stderr).toBe(0);
    const n = /^back (\d+)$/m.exec(r.stdout), asleep = /^asleep (\d+)$/m.exec(r.stdout);
    expect(n, r.stdout).not.toBeNull();
    expect(r.stdout).toContain(`$target ${workload(r.stdout).pid}\n`);
    // Three rounds, each coming back from a 30 ms sleep: the time between leaving and coming
    // back is at least the sleeps (on-cpu fires at the thread's arrival, not at its departure).
    expect(Number(n![1])).toBeGreaterThanOrEqual(3);
    expect(Number(asleep![1])).toBeGreaterThanOrEqual(3 * 30e6);
  });

});
