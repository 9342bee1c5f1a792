// The sched probes beyond on-cpu/off-cpu/sleep/wakeup, on the real kernel: preempt (two busy
// processes sharing one CPU), remain-cpu (sched_yield(2) with nothing else to run there, so the
// scheduler keeps the thread), and change-pri (a SCHED_FIFO thread blocking on a
// priority-inheritance mutex lends its priority to the owner, who gives it back on unlock).
// Then on-cpu where the kernel has sched_exit_tp: it fires inside the arriving thread, so its
// user stack, registers and memory are read there (a pinned workload that naps in a loop: at
// sched_switch the thread leaving its CPU would mostly be the idle thread, with no user state).
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dtrace, gcc, kernelUnavailable, onlineCpus } from '../helpers/run.js';

const skip = kernelUnavailable();
let dir = '';

/** Build C source `text` as `name` in the test's directory. */
function build(name: string, text: string, flags: string[] = []): string {
  const src = path.join(dir, `${name}.c`);
  const prog = path.join(dir, name);
  writeFileSync(src, text);
  gcc(src, prog, flags);
  return prog;
}

/** The lines of stdout that start with `tag`, split into words after it. */
function lines(stdout: string, tag: string): string[][] {
  return stdout.split('\n').filter((l) => l.startsWith(`${tag} `)).map((l) => l.trim().split(/\s+/).slice(1));
}

/** Pin the calling process to the last online CPU (the tests need the CPU to be contended). */
const PIN = `
static void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) { perror("sched_setaffinity"); exit(1); }
}
`;
const cpu = () => onlineCpus().at(-1) ?? 0;

describe.skipIf(skip)(`sched provider: preempt, remain-cpu, change-pri${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dtrace-sched-'));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('dtrace -l lists the new probes; -lv shows change-pri\'s arguments and none for the others', () => {
    const r = dtrace(['-l', '-P', 'sched']);
    expect(r.status, r.stderr).toBe(0);
    const names = r.stdout.trim().split('\n').slice(1).map((l) => l.trim().split(/\s+/).at(-1));
    expect(names).toEqual(['off-cpu', 'sleep', 'wakeup', 'on-cpu', 'preempt', 'change-pri', 'remain-cpu']);
    const types = (probe: string) => {
      const v = dtrace(['-lv', '-n', probe]);
      expect(v.status, v.stderr).toBe(0);
      return [...v.stdout.matchAll(/^\s+args\[(\d+)\]: (.*)$/gm)].map((m) => m[2]);
    };
    expect(types('sched:::change-pri')).toEqual(['lwpsinfo_t *', 'psinfo_t *', 'pri_t']);
    expect(types('sched:::preempt')).toEqual([]);
    expect(types('sched:::remain-cpu')).toEqual([]);
    // Probes no tracepoint of this kernel stands for are not offered.
    const missing = dtrace(['-n', 'sched:::enqueue']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('dtrace: invalid probe specifier sched:::enqueue: probe description sched:::enqueue does not match any probes');
  });

  test('preempt fires in each of two busy processes sharing a CPU, before each of their switches', () => {
    const prog = build('spin', `#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
${PIN}
static void spin(double secs) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  volatile unsigned long n = 0;
  do {
    for (int i = 0; i < 100000; i++) n++;
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
}
int main(int argc, char **argv) {
  pin(atoi(argv[1]));
  for (int i = 0; i < 2; i++) {
    pid_t pid = fork();
    if (pid == 0) { spin(0.6); _exit(0); }
    printf("spinner %d\\n", (int)pid);
  }
  fflush(stdout);
  while (wait(NULL) > 0) {}
  return 0;
}
`);
    const r = dtrace(['-qn', `
      sched:::preempt /progenyof($target) && pid != $target/ { @p[pid, execname] = count(); }
      sched:::off-cpu /progenyof($target) && pid != $target/ { @o[pid] = count(); }
      sched:::preempt /pid == 0/ { @idle = count(); }
      END {
        printa("preempt %d %s %@d\\n", @p);
        printa("off %d %@d\\n", @o);
        printa("idle %@d\\n", @idle);
      }`, '-c', `${prog} ${cpu()}`]);
    expect(r.status, r.stderr).toBe(0);
    const spinners = lines(r.stdout, 'spinner').map(([p]) => p).sort();
    expect(spinners).toHaveLength(2);
    const preempts = lines(r.stdout, 'preempt');
    // Both spinners, each many times (every few ms over 0.6 s of sharing one CPU), as `spin`.
    expect(preempts.map(([p]) => p).sort(), r.stdout).toEqual(spinners);
    for (const [, name, n] of preempts) {
      expect(name).toBe('spin');
      expect(Number(n)).toBeGreaterThan(10);
    }
    // A preempted thread then leaves the CPU: never more preempts than off-cpus (the last off-cpu
    // is the exit, not a preemption).
    const off = new Map(lines(r.stdout, 'off').map(([p, n]) => [p, Number(n)]));
    for (const [p, , n] of preempts) expect(Number(n)).toBeLessThan(off.get(p) ?? 0);
    // The idle thread leaving the CPU is no preemption.
    expect(lines(r.stdout, 'idle')).toEqual([]);
  });

  test('remain-cpu fires when sched_yield() leaves the thread on its CPU', () => {
    const prog = build('yielder', `#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
${PIN}
int main(int argc, char **argv) {
  pin(atoi(argv[1]));
  for (int i = 0; i < 2000; i++) sched_yield();
  return 0;
}
`);
    const r = dtrace(['-qn', `
      sched:::remain-cpu /pid == $target/ { @[pid, tid, execname] = count(); }
      END { printa("remain %d %d %s %@d\\n", @); }`, '-c', `${prog} ${cpu()}`]);
    expect(r.status, r.stderr).toBe(0);
    const remain = lines(r.stdout, 'remain');
    expect(remain, r.stdout).toHaveLength(1);
    const [pid, tid, name, n] = remain[0];
    expect(tid).toBe(pid);
    expect(name).toBe('yielder');
    // Most of the 2000 yields find nothing else to run on that CPU.
    expect(Number(n)).toBeGreaterThan(100);
  });

  test('change-pri fires when a priority-inheritance mutex boosts its owner, and when it gives it back', () => {
    const prog = build('pi', `#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>
static pthread_mutex_t m;
static void *waiter(void *arg) {
  pthread_mutex_lock(&m);
  pthread_mutex_unlock(&m);
  return arg;
}
int main(void) {
  pthread_mutexattr_t ma;
  pthread_mutexattr_init(&ma);
  pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
  pthread_mutex_init(&m, &ma);
  pthread_mutex_lock(&m);
  pthread_attr_t ta;
  pthread_attr_init(&ta);
  pthread_attr_setinheritsched(&ta, PTHREAD_EXPLICIT_SCHED);
  pthread_attr_setschedpolicy(&ta, SCHED_FIFO);
  struct sched_param sp = { .sched_priority = 10 };
  pthread_attr_setschedparam(&ta, &sp);
  pthread_t t;
  if (pthread_create(&t, &ta, waiter, NULL) != 0) { perror("pthread_create"); return 1; }
  printf("owner %d\\n", (int)gettid());
  fflush(stdout);
  usleep(200000);
  pthread_mutex_unlock(&m);
  pthread_join(t, NULL);
  return 0;
}
`, ['-pthread']);
    const r = dtrace(['-qn', `
      sched:::change-pri /args[1]->pr_pid == $target/ {
        printf("pri %d %d %d %d %s\\n", args[0]->pr_lwpid, args[1]->pr_pid, args[0]->pr_pri, args[2], execname); }`,
    '-c', prog]);
    expect(r.status, r.stderr).toBe(0);
    const owner = lines(r.stdout, 'owner')[0]?.[0];
    expect(owner, r.stdout).toBeDefined();
    // The owner (a SCHED_OTHER thread, priority 120) runs at the waiter's SCHED_FIFO 10, which is
    // the kernel's priority 99 - 10 = 89, until it unlocks.
    expect(lines(r.stdout, 'pri'), r.stdout).toEqual([
      [owner, owner, '120', '89', 'pi'],
      [owner, owner, '89', '120', 'pi'],
    ]);
  });

  /** A workload that naps 2 ms 50 times through nanosleep(), pinned to a CPU by taskset (before
   * exec, so that it never sleeps to migrate); its `marker` string is at a fixed address (-no-pie),
   * read back with nm. `cmd` runs it. */
  function napper(): { cmd: string; marker: string } {
    const prog = build('oncpu', `#include <time.h>
char marker[] = "oncpu's own memory";
__attribute__((noinline)) void nap(void) {
  struct timespec ts = { 0, 2000000 };
  nanosleep(&ts, 0);
}
int main(void) {
  if (!*(volatile char *)marker) return 1; /* fault its page in before the naps */
  for (int i = 0; i < 50; i++) nap();
  return 0;
}
`, ['-fno-omit-frame-pointer', '-no-pie']);
    const nm = spawnSync('nm', [prog], { encoding: 'utf8' });
    const marker = /^([0-9a-f]+) [DdBb] marker$/m.exec(nm.stdout)?.[1];
    if (!marker) throw new Error(`nm found no marker in ${prog}:\n${nm.stdout}${nm.stderr}`);
    return { cmd: `taskset -c ${cpu()} ${prog}`, marker };
  }

  const exitTp = (() => {
    try {
      return readFileSync('/sys/kernel/btf/vmlinux').includes('\0btf_trace_sched_exit_tp\0');
    } catch {
      return false;
    }
  })();

  test('on-cpu\'s ustack() is the arriving thread\'s: back from nanosleep to the workload\'s main', (ctx) => {
    if (!exitTp) ctx.skip('the kernel has no sched_exit_tp (BTF btf_trace_sched_exit_tp): on-cpu runs in the leaving thread');
    const { cmd } = napper();
    const r = dtrace(['-qn', 'sched:::on-cpu /execname == "oncpu"/ { @[ustack()] = count(); }', '-c', cmd]);
    expect(r.status, r.stderr).toBe(0);
    // One stack per aggregation entry, its count last: the naps' return path is one entry.
    const entries = r.stdout.split(/\n\s*\n/).map((b) => b.trim().split('\n').map((l) => l.trim()));
    const naps = entries.filter((e) => e.some((f) => /^libc[^`]*`[_a-z]*nanosleep\+0x/.test(f)) &&
      e.some((f) => f.startsWith('oncpu`main+0x')));
    expect(naps, r.stdout).toHaveLength(1);
    expect(Number(naps[0].at(-1))).toBeGreaterThanOrEqual(50);
  });

  test('on-cpu reads the arriving thread\'s memory and registers: copyinstr, uregs[R_PC], ucaller', (ctx) => {
    if (!exitTp) ctx.skip('the kernel has no sched_exit_tp (BTF btf_trace_sched_exit_tp): on-cpu runs in the leaving thread');
    const { cmd, marker } = napper();
    const r = dtrace(['-qn', `sched:::on-cpu /execname == "oncpu"/ {
        @s[copyinstr(0x${marker})] = count(); @m[umod(uregs[R_PC])] = count(); @c[usym(ucaller)] = count(); }`,
    '-c', cmd]);
    expect(r.status, r.stderr).toBe(0);
    const count = (key: string) => {
      const m = new RegExp(`^\\s+${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+(\\d+)$`, 'm').exec(r.stdout);
      return m ? Number(m[1]) : 0;
    };
    // Each nap comes back in libc's nanosleep (the PC just after its system call), called from main.
    expect(count("oncpu's own memory"), r.stdout).toBeGreaterThanOrEqual(50);
    expect(count('libc.so.6'), r.stdout).toBeGreaterThanOrEqual(50);
    expect(count('oncpu`main'), r.stdout).toBeGreaterThanOrEqual(50);
  });

  test('on-cpu\'s timestamp follows the sleep it ends: each nap at least 2 ms, none backwards', (ctx) => {
    if (!exitTp) ctx.skip('the kernel has no sched_exit_tp (BTF btf_trace_sched_exit_tp): on-cpu runs in the leaving thread');
    const { cmd } = napper();
    const r = dtrace(['-qn', `
      sched:::sleep /execname == "oncpu"/ { self->s = timestamp; }
      sched:::on-cpu /self->s/ { @n = count(); @hi = max(timestamp - self->s); }
      sched:::on-cpu /self->s && timestamp - self->s >= 2000000/ { @naps = count(); }
      sched:::on-cpu /self->s/ { self->s = 0; }
      END { printa("naps %@d %@d %@d\\n", @n, @naps, @hi); }`, '-c', cmd]);
    expect(r.status, r.stderr).toBe(0);
    const [n, naps, hi] = (lines(r.stdout, 'naps')[0] ?? []).map(Number);
    expect(naps, r.stdout).toBeGreaterThanOrEqual(50);
    expect(n).toBeGreaterThanOrEqual(naps);
    // The difference is unsigned: an on-cpu stamped before its sleep would show as ~2^64.
    expect(hi).toBeLessThan(1_000_000_000);
  });

  test('on-cpu fires in each new thread\'s first run', () => {
    const prog = build('threads', `#include <pthread.h>
static void *run(void *arg) { return arg; }
int main(void) {
  for (int i = 0; i < 20; i++) {
    pthread_t t;
    if (pthread_create(&t, 0, run, 0) != 0) return 1;
    pthread_join(t, 0);
  }
  return 0;
}
`, ['-pthread']);
    const r = dtrace(['-qn', `
      int created[int];
      proc:::lwp-create /pid == $target/ { created[args[0]->pr_lwpid] = 1; @c = count(); }
      sched:::on-cpu /created[tid]/ { created[tid] = 0; @first = count(); }
      END { printa("threads %@d %@d\\n", @c, @first); }`, '-c', prog]);
    expect(r.status, r.stderr).toBe(0);
    expect(lines(r.stdout, 'threads'), r.stdout).toEqual([['20', '20']]);
  });
});
