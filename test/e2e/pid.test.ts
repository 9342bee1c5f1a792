// The pid and USDT providers on the real kernel, with real workloads: a small C program built here
// and Debian's /usr/bin/python3 (which carries SystemTap SDT notes).
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, dtrace, dtraceAsync, gcc, kernelUnavailable, type Result } from '../helpers/run.js';
import { readElf } from '../../src/sys/elf.js';

const UPROBE_PMU = '/sys/bus/event_source/devices/uprobe/type';
const PYTHON = '/usr/bin/python3';
const skip = kernelUnavailable() ?? (existsSync(UPROBE_PMU) ? null : 'the kernel has no uprobe PMU');
let work = '';
let prog = '';
const children: ChildProcessWithoutNullStreams[] = [];

/** Start a workload that reads commands from its stdin; resolves once it runs its own program. */
async function start(cmd: string, args: string[]): Promise<ChildProcessWithoutNullStreams> {
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  await new Promise((r) => setTimeout(r, 300));
  return child;
}

/** Send one line to a workload and wait for its one line of reply. */
function feed(child: ChildProcessWithoutNullStreams, line: string): Promise<string> {
  return new Promise((resolve) => {
    child.stdout.once('data', (d) => resolve(String(d)));
    child.stdin.write(line + '\n');
  });
}

/**
 * Run dtrace (not quiet, so it says when its probes are in place), feed the workload once tracing
 * is on, then let tick end it.
 */
async function traceWhile(args: string[], work: () => Promise<unknown>): Promise<Result> {
  const d = dtraceAsync(args);
  for (let i = 0; i < 200 && !/matched/.test(d.err()) && d.child.exitCode === null; i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  // "matched" is said when the programs are loaded; attaching follows.
  await new Promise((r) => setTimeout(r, 1000));
  await work();
  return d.done;
}

/** Aggregation rows "key value" of dtrace's default output. */
function rows(stdout: string): Map<string, number> {
  return new Map([...stdout.matchAll(/^\s+(\S+)\s+(\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
}

afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

describe.skipIf(skip)(`pid provider${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(() => {
    work = mkdtempSync(path.join(tmpdir(), 'dtrace-pid-'));
    prog = path.join(work, 'pid-target');
    gcc(path.join(ROOT, 'test/e2e/progs/pid-target.c'), prog);
  });

  test('lists entry, return and every instruction\'s probe of a function, module named by its file', async () => {
    const child = await start(prog, []);
    const r = dtrace(['-l', '-n', `pid${child.pid}:a.out:target:`]);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^\s*ID\s+PROVIDER\s+MODULE\s+FUNCTION NAME$/);
    // The instructions' offsets, as objdump disassembles the function.
    const sym = readElf(prog).lookupFunction('target')!;
    const dis = spawnSync('objdump', ['-d', `--start-address=0x${sym.value.toString(16)}`, `--stop-address=0x${(sym.value + sym.size).toString(16)}`, prog], { encoding: 'utf8' }).stdout;
    const offsets = [...dis.matchAll(/^\s+([0-9a-f]+):\t/gm)].map((m) => (BigInt('0x' + m[1]) - sym.value).toString(16));
    expect(offsets.length).toBeGreaterThan(3);
    expect(lines.slice(1).map((l) => l.trim().split(/\s+/).slice(1))).toEqual([
      [`pid${child.pid}`, 'pid-target', 'target', 'entry'],
      [`pid${child.pid}`, 'pid-target', 'target', 'return'],
      ...offsets.map((o) => [`pid${child.pid}`, 'pid-target', 'target', o]),
    ]);
    // A glob over the executable's functions lists their instructions too, as DTrace does
    // (DTrace for Linux 2.0.1 agrees); over a library's, entry and return only.
    const g = dtrace(['-l', '-n', `pid${child.pid}:a.out:targ*:`]);
    expect(g.stdout.trim().split('\n').slice(1).map((l) => l.trim().split(/\s+/).pop())).toEqual(['entry', 'return', ...offsets]);
    const lib = dtrace(['-l', '-n', `pid${child.pid}:libc.so.6:atoi*:`]);
    expect(lib.stdout.trim().split('\n').slice(1).map((l) => l.trim().split(/\s+/).pop())).toEqual(['entry', 'return']);
  });

  test('-F indents pid entry and return probes with their function names', async () => {
    const child = await start(prog, []);
    const r = await traceWhile(['-F', '-n', `pid${child.pid}:a.out:target:entry, pid${child.pid}:a.out:target:return {} tick-2s { exit(0); }`], () => feed(child, '1'));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^CPU FUNCTION\s*\n(\s+\d+  -> target\s*\n\s+\d+  <- target\s*\n)+/m);
  });

  test('pid<PID>:a.out:target:entry counts every call of target', async () => {
    const child = await start(prog, []);
    const r = await traceWhile(
      ['-n', `pid${child.pid}:a.out:target:entry { @ = count(); } tick-2s { exit(0); }`],
      () => feed(child, '1000'),
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('matched 2 probes');
    expect(r.stdout.trim().split('\n').pop()!.trim()).toBe('1000');
  });

  test('entry arg0 is the first argument; return arg1 the return value, arg0 0', async () => {
    const child = await start(prog, []);
    const r = await traceWhile(
      ['-n', `pid${child.pid}:a.out:target:entry { @["entry-arg0", arg0] = count(); }
              pid${child.pid}:a.out:target:return { @["return-arg1", arg1] = count(); @["return-arg0", arg0] = count(); }
              tick-2s { exit(0); }`],
      () => feed(child, '3'),
    );
    expect(r.status, r.stderr).toBe(0);
    const got = [...r.stdout.matchAll(/^\s+(\S+)\s+(\d+)\s+(\d+)$/gm)].map((m) => `${m[1]} ${m[2]} ${m[3]}`).sort();
    expect(got).toEqual([
      'entry-arg0 0 1', 'entry-arg0 1 1', 'entry-arg0 2 1',
      'return-arg0 0 3',
      'return-arg1 0 1', 'return-arg1 2 1', 'return-arg1 4 1',
    ]);
  });

  test('an offset probe (target:0) and a libc function (fflush) fire', async () => {
    const child = await start(prog, []);
    const r = await traceWhile(
      ['-n', `pid${child.pid}:a.out:target:0 { @[probename] = count(); }
              pid${child.pid}:libc.so.6:fflush:entry { @[probemod] = count(); }
              tick-2s { exit(0); }`],
      async () => { await feed(child, '7'); await feed(child, '1'); },
    );
    expect(r.status, r.stderr).toBe(0);
    const agg = rows(r.stdout);
    expect(agg.get('0')).toBe(8);
    expect(agg.get('libc.so.6')).toBe(2);
  });

  test('function globs match entry probes across the executable', async () => {
    const child = await start(prog, []);
    const r = dtrace(['-l', '-n', `pid${child.pid}:a.out:ta*:entry`]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/ target entry\n/);
    expect(r.stdout).not.toMatch(/ main entry/);
  });

  test('the traced process runs on unharmed after dtrace exits', async () => {
    const child = await start(prog, []);
    const r = await traceWhile(
      ['-qn', `pid${child.pid}:a.out:target:entry,pid${child.pid}:a.out:target:return { @ = count(); } tick-1s { exit(0); }`],
      () => feed(child, '2'),
    );
    expect(r.status, r.stderr).toBe(0);
    expect(await feed(child, '4')).toBe('12\n');
  });

});

describe.skipIf(skip)(`usdt provider, hand-written SDT notes${skip ? ` (skipped: ${skip})` : ''}`, () => {
  test('two sites of one probe in one function: register, memory and constant arguments', async () => {
    const sdt = path.join(mkdtempSync(path.join(tmpdir(), 'dtrace-sdt-')), 'pid-sdt');
    gcc(path.join(ROOT, 'test/e2e/progs/pid-sdt.c'), sdt);
    const child = await start(sdt, []);
    const listed = dtrace(['-l', '-n', `demo${child.pid}:::`]);
    expect(listed.stdout.trim().split('\n').slice(1).map((l) => l.trim().split(/\s+/).slice(1))).toEqual([
      [`demo${child.pid}`, 'pid-sdt', 'main', 'tick-tock'],
    ]);
    const r = await traceWhile(
      ['-n', `demo${child.pid}:::tick-tock { @[arg0, arg1, arg2] = count(); } tick-2s { exit(0); }`],
      () => feed(child, '3'),
    );
    expect(r.status, r.stderr).toBe(0);
    const got = [...r.stdout.matchAll(/^\s+(-?\d+)\s+(\d+)\s+(\d+)\s+(\d+)$/gm)].map((m) => m.slice(1).join(' '));
    // The loop's site: (i, running total, 7) for i = 0..2; the site after it: (-3, 3, 7).
    expect(got.sort()).toEqual(['-3 3 7 1', '0 0 7 1', '1 1 7 1', '2 3 7 1']);
  });
});

/**
 * Python 3.11 fires function-entry only while its line probe is enabled too (cpython issue #98894:
 * the 3.11 interpreter reaches its function-entry site only on its tracing path, which the line
 * probe's semaphore turns on), so the tests enable line as well.
 */
const LINE = (pid: number | string) => `python${pid}:::line { @lines = count(); }`;

const pySkip = skip ?? (existsSync(PYTHON) ? null : `${PYTHON} is not installed`);
describe.skipIf(pySkip)(`usdt provider${pySkip ? ` (skipped: ${pySkip})` : ''}`, () => {
  const script = path.join(ROOT, 'test/e2e/progs/pid-usdt.py');

  test('lists python3\'s SDT probes with DTrace names', async () => {
    const child = await start(PYTHON, [script]);
    const r = dtrace(['-l', '-n', `python${child.pid}:::`]);
    expect(r.status, r.stderr).toBe(0);
    const names = r.stdout.trim().split('\n').slice(1).map((l) => l.trim().split(/\s+/).pop());
    // Debian's python3.11 carries 8 SDT notes (readelf -n /usr/bin/python3.11).
    expect(names.sort()).toEqual([
      'audit', 'function-entry', 'function-return', 'gc-done', 'gc-start', 'import-find-load-done',
      'import-find-load-start', 'line',
    ]);
  });

  test('function-entry: arg2 is the line number, the semaphore is raised only while traced', async () => {
    const child = await start(PYTHON, [script]);
    const note = readElf('/proc/' + child.pid + '/exe').sdtNotes().find((n) => n.name === 'function__entry')!;
    const semaphore = () => {
      const fd = openSync(`/proc/${child.pid}/mem`, 'r');
      const b = Buffer.alloc(2);
      // python3 is not position-independent on Debian: the semaphore's address is its link address.
      readSync(fd, b, 0, 2, Number(note.semaphore));
      closeSync(fd);
      return b.readUInt16LE(0);
    };
    expect(semaphore()).toBe(0);
    let during = -1;
    const r = await traceWhile(
      ['-n', `python${child.pid}:::function-entry { @[arg2] = count(); } ${LINE(child.pid!)} tick-2s { exit(0); }`],
      async () => { during = semaphore(); await feed(child, 'go'); },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(during).toBe(1);
    const agg = rows(r.stdout);
    expect(agg.get('7'), r.stdout).toBe(6); // foo, defined on line 7
    expect(agg.get('11'), r.stdout).toBe(2); // bar, line 11
    expect(semaphore()).toBe(0);
  });

  test('function-entry counts per function name with copyinstr(arg1)', async () => {
    const child = await start(PYTHON, [script]);
    const r = await traceWhile(
      ['-n', `python${child.pid}:::function-entry { @[copyinstr(arg1)] = count(); } ${LINE(child.pid!)} tick-2s { exit(0); }`],
      () => feed(child, 'go'),
    );
    expect(r.status, r.stderr).toBe(0);
    const agg = rows(r.stdout);
    expect(agg.get('foo'), r.stdout).toBe(6);
    expect(agg.get('bar'), r.stdout).toBe(2);
  });

  test('gc-start: arg0 read from user memory (its SDT argument is -4@112(%rsp))', async () => {
    const child = await start(PYTHON, [script]);
    const r = await traceWhile(
      ['-n', `python${child.pid}:::gc-start { @[arg0] = count(); } tick-2s { exit(0); }`],
      () => feed(child, 'gc'),
    );
    expect(r.status, r.stderr).toBe(0);
    expect(rows(r.stdout).get('1'), r.stdout).toBe(3);
  });

});

describe.skipIf(skip)(`pid provider, a whole library${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let calls = '';
  beforeAll(() => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dtrace-libc-'));
    calls = path.join(dir, 'libc-calls');
    gcc(path.join(ROOT, 'test/e2e/progs/libc-calls.c'), calls);
  });

  test('pid$target:libc.so.6::entry: every function, ready fast, counts right, refused ones named once', async () => {
    const started = Date.now();
    const d = dtraceAsync(['-q', '-n', 'BEGIN { printf("ready\\n"); } pid$target:libc.so.6::entry { @[probefunc] = count(); }', '-c', `${calls} 25`]);
    await d.waitFor(/ready/);
    const readyMs = Date.now() - started;
    const r = await d.done;
    expect(r.status, r.stderr).toBe(0);
    const counts = rows(r.stdout);
    // Every call the program makes, under the names users know (malloc and free, not __libc_*).
    expect(counts.get('usleep')).toBe(25);
    expect(counts.get('malloc')).toBeGreaterThanOrEqual(25);
    expect(counts.get('free')).toBeGreaterThanOrEqual(25);
    expect(counts.has('__libc_malloc')).toBe(false);
    expect(counts.has('cfree')).toBe(false);
    // Over a thousand functions: the line says how many were left out, or there is none. (The
    // C library's start-up calls come before main(), where -c's command waits: not traced.)
    expect(counts.size).toBeGreaterThan(10);
    const skipped = /^dtrace: (\d+) functions? could not be instrumented: (.*)$/m.exec(r.stderr);
    // pthread_spin_lock starts with a lock-prefixed instruction, which x86 uprobes refuse.
    const libc = readElf('/lib/x86_64-linux-gnu/libc.so.6');
    const spin = libc.lookupFunction('pthread_spin_lock')!;
    const first = libc.data[libc.fileOffset(spin.value)!];
    if (first === 0xf0) {
      expect(skipped, r.stderr).not.toBeNull();
      expect(skipped![2].split(', ')).toContain('pthread_spin_lock');
      expect(skipped![2].split(', ').length).toBe(Number(skipped![1]));
    }
    expect(r.stderr).not.toMatch(/failed to enable/);
    // A second or two on a quiet machine (uprobe-multi links); generous here for a busy one.
    expect(readyMs).toBeLessThan(15000);
  });

  test('a function the kernel cannot probe, named alone, fails the program', async () => {
    const libc = readElf('/lib/x86_64-linux-gnu/libc.so.6');
    const spin = libc.lookupFunction('pthread_spin_lock')!;
    if (libc.data[libc.fileOffset(spin.value)!] !== 0xf0) return; // another libc: nothing to refuse
    const r = dtrace(['-n', 'pid$target:libc.so.6:pthread_spin_lock:entry', '-c', `${calls} 1`]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/failed to enable pid\d+:libc\.so\.6:pthread_spin_lock:entry: the kernel cannot place a uprobe/);
  });
});
