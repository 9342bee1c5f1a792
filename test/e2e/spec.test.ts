// Speculative tracing on the real kernel with a real workload: speculate on every openat() of a
// process, commit only when the return shows an error, discard otherwise.
import { beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dtrace, gcc, kernelUnavailable, onlineCpus } from '../helpers/run.js';

const skip = kernelUnavailable();

const SCRIPT = `
syscall::openat:entry
/pid == $target/
{
	self->spec = speculation();
	speculate(self->spec);
	printf("openat %s\\n", copyinstr(arg1));
}

syscall::openat:return
/self->spec && errno != 0/
{
	speculate(self->spec);
	printf("failed: errno %d\\n", errno);
}

syscall::openat:return
/self->spec && errno != 0/
{
	commit(self->spec);
	self->spec = 0;
}

syscall::openat:return
/self->spec/
{
	discard(self->spec);
	self->spec = 0;
}
`;

describe.skipIf(skip)(`speculations on the kernel${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'dtrace-spec-'));
  const script = path.join(dir, 'errors.d');
  writeFileSync(script, SCRIPT);
  const present = path.join(dir, 'present.txt');
  writeFileSync(present, 'here\n');
  const missing = path.join(dir, 'missing.txt');

  test('only the failed opens are committed; the successful ones are discarded', () => {
    // On one CPU: a speculation recorded on several CPUs is committed CPU by CPU, the committing
    // CPU's records first, as DTrace does -- which would reorder entry and return here.
    // A discarded speculation that recorded nothing stays busy until the consumer has seen it
    // (DTrace for Linux keeps every committed or discarded one busy, and with nspec=4 misses the
    // later opens: "failed speculations (available buffer(s) still busy)"), so there are enough
    // for every open cat makes.
    const r = dtrace(['-q', '-x', 'nspec=256', '-s', script, '-c', `taskset -c 0 cat ${missing} ${present}`]);
    // copyinstr() of a path in a page of a library not yet faulted in is an error, as in DTrace;
    // the clause is abandoned and its speculation discarded at the return.
    const faults = r.stderr.split('\n').filter((l) => l.startsWith('dtrace: error on enabled probe'));
    expect(faults.every((l) => l.includes('invalid address')), r.stderr).toBe(true);
    if (faults.length === 0) expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`openat ${missing}\nfailed: errno 2\n`);
    // The file that opened, and the shared libraries cat loaded, were discarded.
    expect(r.stdout).not.toContain(`openat ${present}`);
    expect(r.stdout).not.toMatch(/openat .*libc\.so/);
    // Every committed entry record is followed by its return record, in the order recorded.
    // cat writes its "here" to the same pipe as dtrace, at any point between dtrace's writes.
    const lines = r.stdout.split('\n').filter((l) => l !== 'here');
    lines.forEach((l, i) => {
      if (l.startsWith('openat ')) expect(lines[i + 1]).toMatch(/^failed: errno \d+$/);
    });
    expect(r.stdout).toContain('here\n'); // cat's own output: the workload ran
  });

  test('discarding everything prints nothing', () => {
    const all = SCRIPT.replace(/errno != 0/g, '0');
    const file = path.join(dir, 'discard.d');
    writeFileSync(file, all);
    const r = dtrace(['-q', '-x', 'nspec=4', '-s', file, '-c', `cat ${present}`]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('here\n\n');
  });

  test('one speculation shared by two threads at once: failed speculations are reported', () => {
    // Every openat of the target takes the only speculation and never gives it back, so each
    // later speculation() fails: "no speculative buffer available".
    const file = path.join(dir, 'leak.d');
    writeFileSync(file, 'syscall::openat:entry /pid == $target/ { self->s = speculation(); printf("%d\\n", self->s); }\n');
    const r = dtrace(['-q', '-s', file, '-c', `cat ${present} ${present} ${present}`]);
    expect(r.status, r.stderr).toBe(0);
    const ids = r.stdout.split('\n').filter((l) => /^\d+$/.test(l)).map(Number);
    expect(ids[0]).toBe(1);
    expect(ids.slice(1).every((id) => id === 0)).toBe(true);
    expect(ids.length).toBeGreaterThan(3);
    const failed = ids.length - 1;
    expect(r.stderr).toContain(`dtrace: ${failed} failed speculation${failed === 1 ? '' : 's'} (no speculative buffer available)\n`);
  });
});

const skip2 = skip ?? (onlineCpus().length < 2 ? 'one online CPU' : null);
describe.skipIf(skip2)(`a speculation recorded on two CPUs${skip2 ? ` (skipped: ${skip2})` : ''}`, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'dtrace-spec2-'));
  const prog = path.join(dir, 'migrate');
  beforeAll(() => {
    const src = path.join(dir, 'migrate.c');
    const [a, b] = onlineCpus();
    writeFileSync(src, `#define _GNU_SOURCE
#include <sched.h>
#include <unistd.h>
static void on(int cpu) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(cpu, &s); sched_setaffinity(0, sizeof s, &s); }
int main(void) { on(${a}); getpid(); on(${b}); getppid(); getppid(); return 0; }
`);
    gcc(src, prog);
  });

  test('commit prints the committing CPU\'s records first; the speculation stays busy until the consumer cleans it', () => {
    const file = path.join(dir, 'migrate.d');
    writeFileSync(file, `
syscall::getpid:entry /pid == $target/ { self->s = speculation(); speculate(self->s); printf("first CPU\\n"); }
syscall::getppid:entry /self->s/ { speculate(self->s); printf("second CPU\\n"); }
syscall::getppid:entry /self->s/ { commit(self->s); self->s = 0; self->done = 1; }
syscall::getppid:return /self->done/ { self->done = 0; self->t = speculation(); printf("then %d\\n", self->t); }
`);
    const r = dtrace(['-q', '-s', file, '-c', prog]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('second CPU\nfirst CPU\nthen 0\n\n');
    expect(r.stderr).toBe('dtrace: 1 failed speculation (available buffer(s) still busy)\n');
  });
});
