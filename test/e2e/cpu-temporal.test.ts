// -x cpu and -x temporal on the real kernel, with workloads pinned to each CPU by taskset(1):
// under -x cpu=N probes fire and record only on CPU N (BEGIN, END and tick too, as in DTrace for
// Linux); under -x temporal the records of every CPU are printed in the order they were traced.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, test } from 'vitest';
import { dtrace, kernelUnavailable, onlineCpus } from '../helpers/run.js';

const cpus = onlineCpus();
const skip = kernelUnavailable() ??
  (cpus.length < 2 ? 'these tests need two online CPUs' : null) ??
  (spawnSync('taskset', ['-V']).status !== 0 ? 'taskset(1) is not installed' : null);
const [cpuA, cpuB] = cpus;

let workers: ChildProcess[] = [];
afterEach(() => {
  for (const w of workers) w.kill('SIGKILL');
  workers = [];
});

/** A process pinned to `cpu` running `command` (a shell loop) until the test ends. */
function pinned(cpu: number, command: string): void {
  workers.push(spawn('taskset', ['-c', String(cpu), 'sh', '-c', command], { stdio: 'ignore' }));
}
const spin = 'while :; do :; done';

/** "CPU COUNT" rows of a printed count() aggregation keyed by cpu. */
function countsByCpu(stdout: string): Map<number, number> {
  const m = new Map<number, number>();
  for (const line of stdout.split('\n')) {
    const r = /^\s+(\d+)\s+(\d+)$/.exec(line);
    if (r) m.set(Number(r[1]), Number(r[2]));
  }
  return m;
}

/** "CPU TIMESTAMP" lines of profile output. */
function stamps(stdout: string): { cpu: number; ts: bigint }[] {
  return stdout.split('\n').filter((l) => /^\d+ \d+$/.test(l)).map((l) => {
    const [c, t] = l.split(' ');
    return { cpu: Number(c), ts: BigInt(t) };
  });
}
const decreases = (xs: { ts: bigint }[]) => xs.filter((x, i) => i > 0 && x.ts < xs[i - 1].ts).length;

describe.skipIf(skip)(`-x cpu${skip ? ` (skipped: ${skip})` : ''}`, () => {
  test.each([0, 1])('profile, BEGIN, tick and END fire only on the traced CPU (the %i-th online one)', (i) => {
    const cpu = cpus[i];
    pinned(cpuA, spin);
    pinned(cpuB, spin);
    const r = dtrace(['-x', `cpu=${cpu}`, '-qn',
      'BEGIN { printf("BEGIN %d\\n", cpu); } profile-997 { @[cpu] = count(); } ' +
      'tick-500ms { printf("tick %d\\n", cpu); exit(0); } END { printf("END %d\\n", cpu); }']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n').filter((l) => /^[A-Za-z]/.test(l));
    expect(lines).toEqual([`BEGIN ${cpu}`, `tick ${cpu}`, `END ${cpu}`]);
    const counts = countsByCpu(r.stdout);
    expect([...counts.keys()]).toEqual([cpu]);
    expect(counts.get(cpu)!).toBeGreaterThan(100); // ~500 firings of a busy CPU
  });

  test('a system call tracepoint counts only the traced CPU\'s callers', () => {
    // dd reads and writes one byte at a time, a process on each CPU.
    const dd = 'while :; do dd if=/dev/zero of=/dev/null bs=1 count=100000 2>/dev/null; done';
    pinned(cpuA, dd);
    pinned(cpuB, dd);
    for (const cpu of [cpuA, cpuB]) {
      const r = dtrace(['-x', `cpu=${cpu}`, '-qn',
        'syscall::read:entry /execname == "dd"/ { @[cpu] = count(); } tick-500ms { exit(0); }']);
      expect(r.stderr).toBe('');
      const counts = countsByCpu(r.stdout);
      expect([...counts.keys()], `cpu=${cpu}`).toEqual([cpu]);
      expect(counts.get(cpu)!).toBeGreaterThan(1000);
    }
    // Without the option both CPUs' callers are counted.
    const all = countsByCpu(dtrace(['-qn', 'syscall::read:entry /execname == "dd"/ { @[cpu] = count(); } tick-500ms { exit(0); }']).stdout);
    expect([...all.keys()].sort()).toEqual([cpuA, cpuB].sort());
  });

  test('a CPU that is not online is refused with DTrace\'s message', () => {
    const none = Math.max(...cpus) + 1;
    for (const value of [String(none), '4096', '-1', 'two']) {
      const r = dtrace(['-x', `cpu=${value}`, '-n', 'BEGIN { exit(0); }']);
      expect(r.stderr, value).toBe('dtrace: failed to set -x cpu: Invalid value for specified option\n');
      expect(r.status, value).toBe(1);
      expect(r.stdout).toBe('');
    }
  });

  test('cpu= (no CPU) traces every CPU; #pragma D option cpu=N works as -x does', () => {
    pinned(cpuA, spin);
    pinned(cpuB, spin);
    const all = dtrace(['-x', 'cpu=', '-qn', 'profile-997 { @[cpu] = count(); } tick-300ms { exit(0); }']);
    expect([...countsByCpu(all.stdout).keys()].sort()).toEqual([cpuA, cpuB].sort());
    const pragma = dtrace(['-qn', `#pragma D option cpu=${cpuB}\nBEGIN { printf("BEGIN %d\\n", cpu); exit(0); }`]);
    expect(pragma.stderr).toBe('');
    expect(pragma.stdout).toBe(`BEGIN ${cpuB}\n\n`);
  });
});

describe.skipIf(skip)(`-x temporal${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const clause = 'profile-997 { printf("%d %d\\n", cpu, timestamp); } tick-1s { exit(0); }';

  test('records from both CPUs come out in time order', () => {
    pinned(cpuA, spin);
    pinned(cpuB, spin);
    const r = dtrace(['-x', 'temporal', '-qn', clause]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const xs = stamps(r.stdout);
    expect(xs.length).toBeGreaterThan(1000); // two busy CPUs for a second
    expect(new Set(xs.map((x) => x.cpu)).size).toBe(2);
    expect(decreases(xs)).toBe(0);
  });

  test('without it each CPU\'s buffer is printed in turn; with it, the same run is merged', () => {
    // bufpolicy=ring prints everything at the end, so the difference shows in every run.
    pinned(cpuA, spin);
    pinned(cpuB, spin);
    const plain = stamps(dtrace(['-x', 'bufpolicy=ring', '-qn', clause]).stdout);
    expect(new Set(plain.map((x) => x.cpu)).size).toBe(2);
    // CPU by CPU: the CPU column changes once, so the timestamps go back once.
    expect(plain.filter((x, i) => i > 0 && x.cpu !== plain[i - 1].cpu).length).toBe(1);
    expect(decreases(plain)).toBe(1);
    const merged = stamps(dtrace(['-x', 'bufpolicy=ring', '-x', 'temporal', '-qn', clause]).stdout);
    expect(new Set(merged.map((x) => x.cpu)).size).toBe(2);
    expect(merged.filter((x, i) => i > 0 && x.cpu !== merged[i - 1].cpu).length).toBeGreaterThan(100);
    expect(decreases(merged)).toBe(0);
  });

  test('-x temporal=no prints CPU by CPU again', () => {
    pinned(cpuA, spin);
    pinned(cpuB, spin);
    const xs = stamps(dtrace(['-x', 'temporal=no', '-x', 'bufpolicy=ring', '-qn', clause]).stdout);
    expect(decreases(xs)).toBe(1);
  });
});
