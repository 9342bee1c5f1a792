// Aggregations on the real kernel: bucket choice in eBPF against DTrace's rules, merging of
// per-CPU data, and aggregation drops when a keyed map is full.
import { beforeAll, describe, expect, test } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, dtrace, dtraceAsync, gcc, kernelUnavailable } from '../helpers/run.js';
import { onlineCpus } from '../helpers/run.js';
import { formatLlquantize, formatLquantize, formatQuantize } from '../../src/consumer/aggprint.js';
import { llquantizeBounds, llquantizeBucket, llquantizeBucketCount, lquantizeBucket, quantizeBucket } from '../../src/dif/buckets.js';

const skip = kernelUnavailable();
let work = '';
// The workload under names of its own: other test files run `getppid` at the same time.
let merger = '';
let dropper = '';
let stormer = '';

/** Values around every power of two, both signs, and the extremes. */
function probeValues(): bigint[] {
  const vs = new Set<bigint>([0n, 1n, -1n, 0x7fffffffffffffffn, -0x8000000000000000n]);
  for (let k = 0n; k < 63n; k++) vs.add(1n << k), vs.add((1n << k) - 1n), vs.add(-(1n << k)), vs.add(-(1n << k) - 1n);
  return [...vs];
}

/** A D literal for v (the most negative value has no positive literal). */
function lit(v: bigint): string {
  if (v === -0x8000000000000000n) return '(-0x7fffffffffffffff - 1)';
  return v < 0n ? `(-${-v})` : `${v}`;
}

function runScript(name: string, body: string): string {
  const file = path.join(work, name);
  writeFileSync(file, `BEGIN\n{\n${body}\texit(0);\n}\n`);
  const r = dtrace(['-qs', file], { timeoutMs: 60000 });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

describe.skipIf(skip)(`aggregations on the kernel${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(() => {
    work = mkdtempSync(path.join(tmpdir(), 'dtrace-agg-'));
    merger = path.join(work, 'aggmerge');
    dropper = path.join(work, 'aggdrops');
    gcc(path.join(ROOT, 'test/e2e/progs/getppid.c'), merger);
    copyFileSync(merger, dropper);
    stormer = path.join(work, 'aggstorm');
    copyFileSync(merger, stormer);
  });

  /** Two storms of `calls` getppid each, at once, while a program that clears or truncates traces them. */
  async function stormUnder(prog: string, calls: number): Promise<string> {
    const d = dtraceAsync(['-qn', `${prog} BEGIN { printf("ready\\n"); }`]);
    await d.waitFor(/^ready$/m);
    const run = () => new Promise<void>((resolve) => spawn(stormer, [String(calls)], { stdio: 'ignore' }).on('close', () => resolve()));
    await Promise.all([run(), run()]);
    // Let a last tick print what the storms left, then stop: END prints what remains.
    await new Promise((r) => setTimeout(r, 300));
    d.child.kill('SIGINT');
    const r = await d.done;
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/drop/);
    return r.stdout;
  }

  // DTrace switches aggregation buffers, so nothing added while printa() and clear() or trunc()
  // run is lost; so does the device, for the aggregations they name (agg-switch.ts).
  test('counts stay exact across clear() under a storm: printed counts add up to the calls', async () => {
    const calls = 400_000;
    const out = await stormUnder('syscall::getppid:entry /execname == "aggstorm"/ { @c = count(); @s[execname] = sum(3); } ' +
      'tick-50ms { printa("c %@d\\n", @c); printa("s %s %@d\\n", @s); clear(@c); clear(@s); } ' +
      'END { printa("c %@d\\n", @c); printa("s %s %@d\\n", @s); }', calls);
    const total = (re: RegExp) => [...out.matchAll(re)].reduce((n, m) => n + Number(m[1]), 0);
    const lines = [...out.matchAll(/^c \d+$/gm)].length;
    expect(lines, 'the ticks printed and cleared several times').toBeGreaterThan(3);
    expect(total(/^c (\d+)$/gm)).toBe(2 * calls);
    expect(total(/^s aggstorm (\d+)$/gm)).toBe(3 * 2 * calls);
  });

  test('counts stay exact across trunc() under a storm, over many keys', async () => {
    const calls = 400_000;
    const out = await stormUnder('syscall::getppid:entry /execname == "aggstorm"/ { @k[timestamp % 23] = count(); } ' +
      'tick-40ms { printa("k %@d\\n", @k); trunc(@k); } END { printa("k %@d\\n", @k); }', calls);
    const counts = [...out.matchAll(/^k (\d+)$/gm)].map((m) => Number(m[1]));
    // More than one round of 23 keys: at least one trunc() ran while the storms were counting (a
    // loaded machine may fire few ticks in the storms' time; the sum is what matters).
    expect(counts.length, 'the ticks printed and truncated while counting').toBeGreaterThan(23);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(2 * calls);
  });

  test('counts stay exact across trunc(@, 1) under a storm: printed less kept adds up to the calls', async () => {
    const calls = 400_000;
    const out = await stormUnder('syscall::getppid:entry /execname == "aggstorm"/ { @[pid] = count(); } ' +
      'tick-50ms { printa("k %d %@d\\n", @); trunc(@, 1); printa("kept %d %@d\\n", @); } END { printa("k %d %@d\\n", @); }', calls);
    const total = (re: RegExp) => [...out.matchAll(re)].reduce((n, m) => n + Number(m[1]), 0);
    // The kept entry is printed again at the next tick, with what came since added.
    expect([...out.matchAll(/^kept \d+ \d+$/gm)].length, 'the ticks truncated while counting').toBeGreaterThan(3);
    expect(total(/^k \d+ (\d+)$/gm) - total(/^kept \d+ (\d+)$/gm)).toBe(2 * calls);
  });

  test('max() stays exact across clear() under a storm: each key\'s last value is printed', async () => {
    // Each storm's n-th call is value n - 1 of key n / 1000: a max() update lost between the
    // read and the reset of a clear() would leave a key without its last value, 1000k + 999.
    const calls = 400_000;
    const out = await stormUnder('syscall::getppid:entry /execname == "aggstorm"/ { self->n++; @m[pid, (self->n - 1) / 1000] = max(self->n - 1); } ' +
      'tick-50ms { printa("m %d %d %@d\\n", @m); clear(@m); } END { printa("m %d %d %@d\\n", @m); }', calls);
    const most = new Map<string, number>();
    let partial = 0;
    for (const [, pid, k, v] of out.matchAll(/^m (\d+) (\d+) (-?\d+)$/gm)) {
      const at = `${pid} ${k}`, value = Number(v);
      if (value >= 0 && value < Number(k) * 1000 + 999) partial++;
      most.set(at, Math.max(most.get(at) ?? -Infinity, value));
    }
    expect(partial, 'a tick printed and cleared a key while it was counting').toBeGreaterThan(0);
    expect(most.size).toBe(2 * calls / 1000);
    expect([...most].filter(([at, v]) => v !== Number(at.split(' ')[1]) * 1000 + 999)).toEqual([]);
  });

  test('printa() right after trunc(@, 3) shows the three it kept, under a storm', async () => {
    const out = await stormUnder('syscall::getppid:entry /execname == "aggstorm"/ { @k[timestamp % 23] = count(); } ' +
      'tick-40ms { trunc(@k, 3); printa("k %d %@d\\n", @k); printf("tick\\n"); }', 400_000);
    const ticks = out.split(/^tick$/m).slice(0, -1).map((t) => [...t.matchAll(/^k \d+ \d+$/gm)].length);
    expect(ticks.filter((n) => n === 3).length, 'ticks that printed a full three rows').toBeGreaterThan(3);
    expect(ticks.filter((n) => n > 3)).toEqual([]);
  });

  test('quantize() picks the bucket DTrace picks for every power-of-two edge', () => {
    const values = probeValues();
    const buckets = new Array<bigint>(127).fill(0n);
    let body = '';
    values.forEach((v, i) => {
      const incr = BigInt(i % 7 + 1);
      buckets[quantizeBucket(v)] += incr;
      body += `\t@q = quantize(${lit(v)}, ${incr});\n`;
    });
    expect(runScript('quantize.d', body)).toBe('\n' + formatQuantize(buckets) + '\n');
  });

  test('lquantize() and llquantize() pick DTrace\'s buckets', () => {
    const lp = { base: -50, step: 7, levels: 20 };
    const llp = { factor: 4, low: 1, high: 5, nsteps: 16 };
    const lb = new Array<bigint>(lp.levels + 2).fill(0n);
    const llb = new Array<bigint>(llquantizeBucketCount(llp)).fill(0n);
    let body = '';
    const values: bigint[] = [];
    for (let v = -60n; v <= 110n; v += 9n) values.push(v);
    llquantizeBounds(llp).forEach((b, i) => { if (i % 5 === 0) values.push(b - 1n, b); });
    for (const v of values) {
      lb[lquantizeBucket(lp, v)] += 1n;
      llb[llquantizeBucket(llp, v)] += 1n;
      body += `\t@l = lquantize(${lit(v)}, -50, 90, 7);\n\t@ll = llquantize(${lit(v)}, 4, 1, 5, 16);\n`;
    }
    expect(runScript('lquantize.d', body)).toBe('\n' + formatLquantize(lp, lb) + '\n' + formatLlquantize(llp, llb) + '\n');
  });

  test('per-CPU values merge: count, sum, min, max and quantize over two CPUs', async (ctx) => {
    const cpus = onlineCpus();
    if (cpus.length < 2) ctx.skip('one online CPU: no per-CPU values to merge');
    const d = dtraceAsync(['-qn', 'syscall::getppid:entry /execname == "aggmerge"/ { @c = count(); @s = sum(cpu); @lo = min(cpu); @hi = max(cpu); @q = quantize(cpu); } BEGIN { printf("ready\\n"); }']);
    await d.waitFor(/^ready$/m);
    spawnSync('taskset', ['-c', String(cpus[0]), merger, '100']);
    spawnSync('taskset', ['-c', String(cpus[1]), merger, '100']);
    d.child.kill('SIGINT');
    const r = await d.done;
    expect(r.status, r.stderr).toBe(0);
    const q = new Array<bigint>(127).fill(0n);
    q[quantizeBucket(BigInt(cpus[0]))] += 100n;
    q[quantizeBucket(BigInt(cpus[1]))] += 100n;
    const n = (v: number) => ' ' + String(v).padStart(16) + '\n';
    // Stopped by SIGINT: "ready", then the blank lines before the aggregations.
    expect(r.stdout.replace(/^ready\n\n+/, '\n')).toBe('\n' + n(200) + n(100 * (cpus[0] + cpus[1])) + n(cpus[0]) + n(cpus[1]) + formatQuantize(q) + '\n');
  });

  test('a full keyed aggregation reports its drops as DTrace does', async () => {
    // aggsize=64k gives 1024 entries (no more than 64 bytes an entry allow).
    const d = dtraceAsync(['-x', 'aggsize=64k', '-qn', 'BEGIN { i = 0; } syscall::getppid:entry /execname == "aggdrops"/ { @[i++] = count(); } BEGIN { printf("ready\\n"); }']);
    await d.waitFor(/^ready$/m);
    spawnSync(dropper, ['2000']);
    d.child.kill('SIGINT');
    const r = await d.done;
    expect(r.status, r.stderr).toBe(0);
    const drops = [...r.stderr.matchAll(/^dtrace: (\d+) aggregation drops? on CPU \d+$/gm)].reduce((s, m) => s + Number(m[1]), 0);
    expect(drops, r.stderr).toBe(2000 - 1024);
    expect(r.stdout.split('\n').filter((l) => /^\s+\d+\s+1$/.test(l)).length).toBe(1024);
  });
});
