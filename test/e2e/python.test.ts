// The python USDT provider on its own, on Debian's /usr/bin/python3 (issue 6): CPython 3.11 fires
// function-entry only while its line semaphore is raised (cpython issue #98894),
// so dtrace raises that semaphore itself for as long as it traces, and the kernel drops it when
// dtrace goes away, however it goes.
import { afterEach, describe, expect, test } from 'vitest';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { ROOT, dtrace, dtraceAsync, kernelUnavailable } from '../helpers/run.js';
import { readElf, type ElfFile } from '../../src/sys/elf.js';

const PYTHON = '/usr/bin/python3';
const SCRIPT = path.join(ROOT, 'test/e2e/progs/python-calls.py');

function pythonElf(): ElfFile | null {
  try {
    return readElf(realpathSync(PYTHON));
  } catch {
    return null;
  }
}
const elf = pythonElf();
const lineNote = elf?.sdtNotes().find((n) => n.provider === 'python' && n.name === 'line');
const skip = kernelUnavailable()
  ?? (existsSync('/sys/bus/event_source/devices/uprobe/type') ? null : 'the kernel has no uprobe PMU')
  ?? (elf ? null : `${PYTHON} is not installed`)
  ?? (elf!.sdtNotes().some((n) => n.provider === 'python' && n.name === 'function__entry') ? null : `${PYTHON} has no python SDT notes`);
/** 3.11, by the PY_VERSION_HEX in Py_Version (which 3.11 introduced): the version with the bug. */
const is311 = (elf?.objectBytes('Py_Version')?.readUInt32LE(0) ?? 0) >>> 16 === 0x030b;

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** Aggregation rows "key value" of dtrace's output. */
function rows(stdout: string): Map<string, number> {
  return new Map([...stdout.matchAll(/^\s+(\S+)\s+(\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
}

/** The python `line` probe's semaphore in a running process, read from its memory. */
function lineSemaphore(pid: number): number {
  // The load bias: where the executable's first segment is mapped, less its link address (0 for
  // Debian's python3, which is not position-independent).
  const exe = readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n')
    .map((l) => /^([0-9a-f]+)-\S+ \S+ 0+ \S+ \d+\s+(\/\S+)$/.exec(l)).find((m) => m && m[2] === realpathSync(PYTHON));
  const first = elf!.segments.filter((s) => s.type === 1 /* PT_LOAD */).map((s) => s.vaddr).reduce((a, b) => (a < b ? a : b));
  const bias = exe ? BigInt(`0x${exe[1]}`) - (first & ~0xfffn) : 0n;
  const fd = openSync(`/proc/${pid}/mem`, 'r');
  const b = Buffer.alloc(2);
  readSync(fd, b, 0, 2, Number(lineNote!.semaphore + bias));
  closeSync(fd);
  return b.readUInt16LE(0);
}

/** Start the script in its "wait" mode; resolves once it has printed "ready". */
async function startWaiting(): Promise<ChildProcessWithoutNullStreams> {
  const child = spawn(PYTHON, [SCRIPT, 'wait'], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  await new Promise((r) => child.stdout.once('data', r));
  return child;
}

function feed(child: ChildProcessWithoutNullStreams): Promise<void> {
  return new Promise((resolve) => {
    child.stdout.once('data', () => resolve());
    child.stdin.write('go\n');
  });
}

describe.skipIf(skip)(`python provider${skip ? ` (skipped: ${skip})` : ''}`, () => {
  test('the line semaphore is raised while tracing and back to 0 after dtrace exits', async () => {
    const child = await startWaiting();
    const pid = child.pid!;
    expect(lineSemaphore(pid)).toBe(0);
    const d = dtraceAsync(['-qn', `BEGIN { printf("tracing\\n"); } python${pid}:::function-entry { @[copyinstr(arg1)] = count(); }`]);
    await d.waitFor(/tracing/); // BEGIN's record is printed once every probe is attached
    expect(lineSemaphore(pid)).toBe(is311 ? 1 : 0);
    await feed(child);
    d.child.kill('SIGINT');
    const r = await d.done;
    expect(r.status, r.stderr).toBe(0);
    expect(rows(r.stdout).get('leaf'), r.stdout).toBe(3);
    expect(lineSemaphore(pid)).toBe(0);
  });

  test('function-return, which 3.11 fires on its own, leaves the line semaphore alone', async () => {
    const child = await startWaiting();
    const pid = child.pid!;
    const d = dtraceAsync(['-qn', `BEGIN { printf("tracing\\n"); } python${pid}:::function-return { @[copyinstr(arg1)] = count(); }`]);
    await d.waitFor(/tracing/);
    expect(lineSemaphore(pid)).toBe(0);
    await feed(child);
    d.child.kill('SIGINT');
    const r = await d.done;
    expect(r.status, r.stderr).toBe(0);
    expect(rows(r.stdout).get('leaf'), r.stdout).toBe(3);
  });

  test('the line semaphore is back to 0 when dtrace is killed', async () => {
    const child = await startWaiting();
    const pid = child.pid!;
    const d = dtraceAsync(['-qn', `BEGIN { printf("tracing\\n"); } python${pid}:::function-entry { @ = count(); }`]);
    await d.waitFor(/tracing/);
    expect(lineSemaphore(pid)).toBe(is311 ? 1 : 0);
    d.child.kill('SIGKILL');
    const r = await d.done;
    expect(r.signal).toBe('SIGKILL');
    expect(lineSemaphore(pid)).toBe(0);
  });

  test('python*:::function-entry traces every python3 started after dtrace, each its own provider', async () => {
    const d = dtraceAsync(['-q', '-n', 'BEGIN { printf("ready\\n"); } python*:::function-entry /copyinstr(arg1) == "leaf"/ { @[probeprov, pid] = count(); }']);
    await d.waitFor(/ready/);
    const pids: number[] = [];
    for (let i = 0; i < 2; i++) {
      const child = await startWaiting();
      pids.push(child.pid!);
      // Raised in each process while dtrace traces (3.11's function-entry needs it).
      if (is311) expect(lineSemaphore(child.pid!)).toBeGreaterThanOrEqual(1);
      for (let k = 0; k <= i; k++) {
        child.stdin.write('go\n');
        await new Promise((r) => child.stdout.once('data', r));
      }
    }
    d.child.kill('SIGINT');
    const r = await d.done;
    expect(r.status, r.stderr).toBe(0);
    const got = [...r.stdout.matchAll(/^\s+(python\d+)\s+(\d+)\s+(\d+)$/gm)].filter((m) => pids.includes(Number(m[2])));
    // leaf() 3 times per line: once in the first process, twice in the second.
    expect(got.map((m) => [m[1], Number(m[2]), Number(m[3])]).sort()).toEqual(
      [[`python${pids[0]}`, pids[0], 3], [`python${pids[1]}`, pids[1], 6]].sort());
    for (const pid of pids) expect(lineSemaphore(pid)).toBe(0);
  });
});
