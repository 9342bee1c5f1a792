// The consumer on the real kernel with real workloads: -F flow indentation of pid and syscall
// entry/return probes, and the record stream under a storm of events (nothing lost unreported).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, dtrace, gcc, kernelUnavailable } from '../helpers/run.js';

const UPROBE_PMU = '/sys/bus/event_source/devices/uprobe/type';
const skip = kernelUnavailable();
let work = '';
let flow = '';
let w = '';
let storm = '';

beforeAll(() => {
  if (skip) return;
  work = mkdtempSync(path.join(tmpdir(), 'dtrace-consumer-'));
  flow = path.join(work, 'flow');
  gcc(path.join(ROOT, 'test/e2e/progs/flow.c'), flow);
  w = path.join(work, 'w');
  gcc(path.join(ROOT, 'test/e2e/progs/w.c'), w);
  storm = path.join(work, 'storm');
  gcc(path.join(ROOT, 'scripts/bench/storm.c'), storm);
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Output lines with the CPU column (which CPU ran the workload) blanked. */
function noCpu(stdout: string): string {
  return stdout.replace(/^ {0,2}\d+ /gm, 'CPU ');
}

describe.skipIf(skip)(`consumer${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const uprobes = existsSync(UPROBE_PMU);

  test('-F indents pid entry and return probes two spaces a level (needs the uprobe PMU)', (ctx) => {
    if (!uprobes) ctx.skip('the kernel has no uprobe PMU');
    const probes = ['outer', 'inner'].flatMap((f) => [`pid$target::${f}:entry`, `pid$target::${f}:return`]).join(', ');
    const r = dtrace(['-F', '-n', `${probes} {}`, '-c', flow]);
    expect(r.stderr).toContain('matched 4 probes');
    expect(r.status).toBe(0);
    const pad = (s: string) => s.padEnd(41) + ' ';
    expect(r.stdout).toBe(
      'CPU FUNCTION'.padEnd(45) + '\n' +
        [' -> outer', '   -> inner', '   <- inner', '   -> inner', '   <- inner', ' <- outer']
          .map((s) => '  0 ' + pad(s) + '\n')
          .join('') +
        '\n',
    );
  });

  test('-F with -q: the heading and the flow column stay, the newlines go', (ctx) => {
    if (!uprobes) ctx.skip('the kernel has no uprobe PMU');
    const r = dtrace(['-Fq', '-n', 'pid$target::inner:entry, pid$target::inner:return { printf("%s\\n", probename); }', '-c', flow]);
    expect(r.stdout).toBe(
      'CPU FUNCTION'.padEnd(45) + '\n' +
        ['  0  -> inner'.padEnd(46) + 'entry\n', '  0  <- inner'.padEnd(46) + 'return\n'].join('').repeat(2) +
        '\n',
    );
  });

  test('-F marks syscall probes => and <=, and other probes with |', () => {
    const r = dtrace(['-F', '-n', 'syscall::getppid:entry, syscall::getppid:return /pid == $target/ {} END {}', '-c', `${w} 2`]);
    expect(r.status).toBe(0);
    const pad = (s: string) => 'CPU ' + s.padEnd(41) + ' \n';
    expect(noCpu(r.stdout)).toBe(
      'CPU FUNCTION'.padEnd(45) + '\n' +
        [' => getppid', ' <= getppid', ' => getppid', ' <= getppid', '| :END'].map(pad).join('') +
        '\n',
    );
  });

  test('tracemem: the bytes as a hex dump, a dynamic size showing fewer of them', () => {
    const r = dtrace(['-qn', 'syscall::getppid:entry /pid == $target/ { tracemem(curthread->comm, 20); tracemem(curthread->comm, 32, 3); }', '-c', w]);
    expect(r.status).toBe(0);
    const head = '\n' + ' '.repeat(11) + [...'0123456789abcdef'].map((c) => '  ' + c).join('') + '  0123456789abcdef\n';
    const comm = '77 ' + '00 '.repeat(15);
    expect(r.stdout).toBe(
      head + '         0: ' + comm + ' w...............\n' + '        10: 00 00 00 00' + ' '.repeat(38) + '....\n' +
        head + '         0: 77 00 00' + ' '.repeat(41) + 'w..\n' + '\n',
    );
  });

  test('print() of a kernel struct through a pointer: its address, then a member a line', () => {
    const load = '(struct load_weight *)((char *)curthread + offsetof(struct task_struct, se) + offsetof(struct sched_entity, load))';
    const r = dtrace(['-qn', `BEGIN { print(${load}); exit(0); }`]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /^0x[0-9a-f]+ = \*\n {44}\(struct load_weight\) \{\n {45}\.weight = \(long unsigned int\)[1-9]\d*,\n {45}\.inv_weight = \(u32\)[1-9]\d*,\n {44}\}\n\n$/,
    );
  });

  test('a printf storm loses no record unreported: printed lines plus reported drops make every call', () => {
    const calls = 300_000;
    // -b 64k: the buffer fills, so drops are certain, the last interval's among them (the kernel
    // tells a buffer's losses only with its next record, which tracing's end must provoke).
    const r = dtrace(['-b', '64k', '-qn', 'syscall::getppid:entry /pid == $target/ { printf("%d\\n", 1); }', '-c', `${storm} ${calls}`], { timeoutMs: 120_000 });
    expect(r.status).toBe(0);
    const printed = r.stdout.split('\n').filter((l) => l === '1').length;
    let dropped = 0;
    for (const m of r.stderr.matchAll(/^dtrace: (\d+) drops? on CPU \d+$/gm)) dropped += Number(m[1]);
    expect(printed).toBeGreaterThan(0);
    expect(dropped).toBeGreaterThan(0);
    expect(printed + dropped).toBe(calls);
  }, 120_000);

  // The workload runs on one CPU, so that one buffer holds every record.
  const numbered = (stdout: string) => stdout.split('\n').filter((l) => /^\d+$/.test(l)).map(Number);
  const script = 'syscall::getppid:entry /pid == $target/ { printf("%d\\n", i++); } END { printf("end\\n"); }';

  test('bufpolicy=ring keeps only the most recent records and prints them at the end', () => {
    const r = dtrace(['-x', 'bufpolicy=ring', '-x', 'bufsize=1k', '-qn', script, '-c', `taskset -c 0 ${storm} 2000`]);
    expect(r.status).toBe(0);
    const n = numbered(r.stdout);
    expect(n.length).toBeGreaterThan(0);
    expect(n.length).toBeLessThan(100);
    expect(n).toEqual(n.map((_, i) => 2000 - n.length + i));
    expect(r.stdout.endsWith('end\n\n')).toBe(true);
  });

  test('bufpolicy=fill keeps the first records, stops tracing and reports the drops', () => {
    const r = dtrace(['-x', 'bufpolicy=fill', '-x', 'bufsize=1k', '-qn', script, '-c', `taskset -c 0 ${storm} 2000`]);
    expect(r.status).toBe(0);
    const n = numbered(r.stdout);
    expect(n.length).toBeGreaterThan(0);
    expect(n.length).toBeLessThan(100);
    expect(n).toEqual(n.map((_, i) => i));
    expect(r.stdout.endsWith('end\n\n')).toBe(true);
    expect(r.stderr).toMatch(/^dtrace: \d+ drops? on CPU 0$/m);
  });

  test('freopen(): the rest of the record, later records, system() and the aggregations at exit go to the file', () => {
    const file = path.join(work, 'freopen.out');
    const r = dtrace(['-qw', '-n', `BEGIN { printf("one\\n"); freopen("${file}"); printf("two\\n"); trace(3); system("echo sys"); @a = count(); exit(0); }`]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('one\n');
    expect(readFileSync(file, 'utf8')).toBe('two\n3sys\n\n                1\n'); // as the reference DTrace for Linux writes it
  });
});
