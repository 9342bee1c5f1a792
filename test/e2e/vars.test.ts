// D variables on the real kernel with a workload: thread-locals set at a system call's entry and
// read at its return, thread-local arrays, associative arrays keyed by pid, and the dynamic
// variable space reused when variables are freed.
import { beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, dtrace, gcc, kernelUnavailable } from '../helpers/run.js';

const skip = kernelUnavailable();
let getppid = '';

describe.skipIf(skip)(`vars${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(() => {
    const work = mkdtempSync(path.join(tmpdir(), 'dtrace-vars-'));
    getppid = path.join(work, 'getppid');
    gcc(path.join(ROOT, 'test/e2e/progs/getppid.c'), getppid);
  });

  test('a thread-local set at syscall entry is read at its return, by that thread only', () => {
    const script = `
      syscall::getppid:entry /pid == $target/ { self->ts = timestamp; }
      syscall::getppid:return /self->ts/ {
        @calls = count();
        @positive = sum(timestamp - self->ts > 0);
        self->ts = 0;
      }`;
    const r = dtrace(['-q', '-n', script, '-c', `${getppid} 500`]);
    expect(r.status, r.stderr).toBe(0);
    // Two aggregations, each 500: every return of the target's calls saw its own entry's time.
    const values = r.stdout.trim().split(/\s+/).map(Number);
    expect(values).toEqual([500, 500]);
  });

  test('thread-local arrays and global arrays keyed by pid count per thread and per process', () => {
    const script = `
      syscall::getppid:entry /pid == $target/ { self->n[probefunc]++; calls[pid, "getppid"]++; }
      syscall::getppid:return /pid == $target && self->n["getppid"] == 300/ {
        printf("self %d global %d\\n", self->n["getppid"], calls[pid, "getppid"]);
        self->n["getppid"] = 0;
      }`;
    const r = dtrace(['-q', '-n', script, '-c', `${getppid} 300`]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('self 300 global 300\n\n');
  });

  test('freed thread-locals give their space back: no drops in a small dynamic variable space', () => {
    // 2k holds 256 thread-local uint64s; 2000 calls each set and free one.
    const script = `
      syscall::getppid:entry /pid == $target/ { self->ts = timestamp; }
      syscall::getppid:return /self->ts/ { @ = count(); self->ts = 0; }`;
    const r = dtrace(['-q', '-x', 'dynvarsize=2k', '-n', script, '-c', `${getppid} 2000`]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/dynamic variable drop/);
    expect(r.stdout.trim()).toBe('2000');
  });

  test('a full dynamic variable space drops stores and says how many', () => {
    // Each call keys a new element; DTrace for Linux counts 12 + 4 + 4 bytes for an int-keyed int,
    // so 2k holds 102 of them and the other 98 calls drop.
    const script = `syscall::getppid:entry /pid == $target/ { seen[(int)timestamp] = 1; }`;
    const r = dtrace(['-q', '-x', 'dynvarsize=2k', '-n', script, '-c', `${getppid} 200`]);
    expect(r.status, r.stderr).toBe(0);
    const drops = [...r.stderr.matchAll(/^dtrace: (\d+) dynamic variable drops?$/gm)].reduce((n, m) => n + Number(m[1]), 0);
    expect(drops).toBeGreaterThan(90);
    expect(drops).toBeLessThanOrEqual(98);
  });
});
