// lockstat's contention probes (issue 17) from lock:contention_begin/contention_end: four threads
// creating and removing files in one directory wait for its inode's rw_semaphore, and rw-block
// reports those waits with their lock, time and side.
import { beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dtrace, kernelUnavailable, withoutMissReports } from '../helpers/run.js';

const skip = kernelUnavailable();

const WORK = `
import os, sys, threading
d = sys.argv[1]
def work(i):
    for j in range(3000):
        p = f"{d}/f{i}_{j}"
        open(p, "w").close(); os.unlink(p)
ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
[t.start() for t in ts]; [t.join() for t in ts]
`;

describe.skipIf(skip)(`lockstat${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dtrace-lockstat-'));
    writeFileSync(path.join(dir, 'work.py'), WORK);
  });

  test('-l lists the probes this kernel can give, with the reference\'s argument types', () => {
    const r = dtrace(['-lv', '-P', 'lockstat']);
    expect(r.status).toBe(0);
    const probes = [...r.stdout.matchAll(/lockstat\s+vmlinux\s+(\S+)/g)].map((m) => m[1]);
    expect(probes).toEqual(['adaptive-spin', 'adaptive-block', 'spin-spin', 'rw-spin', 'rw-block']);
    const block = r.stdout.slice(r.stdout.indexOf('adaptive-block'));
    expect(block).toMatch(/args\[0\]: struct mutex \*\n\t\targs\[1\]: uint64_t\n/);
    // struct rwlock, as the reference names it (the kernel's rwlock_t is an unnamed struct).
    expect(r.stdout.slice(r.stdout.indexOf(' rw-spin'))).toMatch(/args\[0\]: struct rwlock \*\n\t\targs\[1\]: uint64_t\n\t\targs\[2\]: int\n/);
    // ... which the D library completes with the lock word, so its members can be used.
    const member = dtrace(['-e', '-n', 'lockstat:::rw-spin { trace(sizeof (args[0]->raw_lock)); }']);
    expect(member.stderr).toBe('');
    expect(member.status).toBe(0);
  });

  test('a probe DTrace has but this kernel cannot give says why', () => {
    const r = dtrace(['-n', 'lockstat:::adaptive-acquire { }']);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('dtrace: invalid probe specifier lockstat:::adaptive-acquire { }: probe description lockstat:::adaptive-acquire does not match any probes: lockstat provider: adaptive-acquire needs the kernel\'s lock_acquire and lock_release tracepoints (lockdep), which this kernel has not; its contention probes are adaptive-spin, adaptive-block, spin-spin, rw-spin, rw-block\n');
  });

  test('rw-block: the directory semaphore\'s waits, each with its time and side', () => {
    const r = dtrace(['-q', '-n', `
      lockstat:::rw-block /pid == $target/ {
        @n = count();
        @bad = sum(args[0] == NULL || args[1] == 0 || args[1] > 60000000000 || (args[2] != RW_READER && args[2] != RW_WRITER));
      }
      END { printa("waits %@d bad %@d\\n", @n, @bad); }`,
    '-c', `python3 ${path.join(dir, 'work.py')} ${dir}`], { timeoutMs: 120_000 });
    expect(withoutMissReports(r.stderr)).toBe('');
    expect(r.status).toBe(0);
    const m = /^waits (\d+) bad (\d+)$/m.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThan(0);
    expect(Number(m![2])).toBe(0);
  });
});
