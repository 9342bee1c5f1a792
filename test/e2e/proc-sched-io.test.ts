// The stable proc, sched and io providers on the real kernel, with their translated arguments
// (psinfo_t, lwpsinfo_t from lib/dtrace/procfs.d; bufinfo_t, devinfo_t, fileinfo_t from
// lib/dtrace/io.d): workloads that signal, fork, start threads, sleep and write to a loop device,
// and the values the probes report checked against what the workloads did.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dtrace, gcc, kernelUnavailable } from '../helpers/run.js';

const skip = kernelUnavailable();
let dir = '';

/** A shell script in the test's directory. */
function script(name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  chmodSync(p, 0o755);
  return p;
}

/** The lines of stdout that start with `tag`, split into words after it. */
function lines(stdout: string, tag: string): string[][] {
  return stdout.split('\n').filter((l) => l.startsWith(`${tag} `)).map((l) => l.split(' ').slice(1));
}

describe.skipIf(skip)(`proc, sched and io providers${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dtrace-psi-'));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('dtrace -lv shows the translated argument types', () => {
    const types = (probe: string) => {
      const r = dtrace(['-lv', '-n', probe]);
      expect(r.status, r.stderr).toBe(0);
      return [...r.stdout.matchAll(/^\s+args\[(\d+)\]: (.*)$/gm)].map((m) => m[2]);
    };
    expect(types('proc:::signal-send')).toEqual(['lwpsinfo_t *', 'psinfo_t *', 'int']);
    expect(types('proc:::signal-handle')).toEqual(['int', 'struct kernel_siginfo *', 'uintptr_t']);
    expect(types('proc:::create')).toEqual(['psinfo_t *']);
    expect(types('proc:::lwp-create')).toEqual(['lwpsinfo_t *', 'psinfo_t *']);
    expect(types('proc:::exit')).toEqual(['int']);
    expect(types('sched:::off-cpu')).toEqual(['lwpsinfo_t *', 'psinfo_t *']);
    expect(types('sched:::wakeup')).toEqual(['lwpsinfo_t *', 'psinfo_t *']);
    expect(types('io:::start')).toEqual(['bufinfo_t *', 'devinfo_t *', 'fileinfo_t *']);
    expect(types('io:::done')).toEqual(['bufinfo_t *', 'devinfo_t *', 'fileinfo_t *']);
  });

  test('signal-send names the target and the signal; the killed child exits with CLD_KILLED', () => {
    const sh = script('kill.sh', '#!/bin/sh\necho "script $$"\nsleep 5 &\necho "child $!"\nsleep 0.5\nkill -TERM $!\nwait\n');
    const r = dtrace(['-qn', `
      proc:::signal-send /progenyof($target) && args[2] == SIGTERM/ {
        printf("send %d %d %d %s %s\\n", args[1]->pr_pid, args[0]->pr_lwpid, args[2], stringof(args[1]->pr_fname), execname); }
      proc:::exit /progenyof($target)/ { printf("exit %d %d\\n", pid, args[0]); }`, '-c', sh]);
    expect(r.status, r.stderr).toBe(0);
    const child = /^child (\d+)$/m.exec(r.stdout)?.[1];
    expect(child, r.stdout).toBeDefined();
    // Sent by the script to the child (by then running sleep), its only thread.
    expect(lines(r.stdout, 'send')).toEqual([[child, child, '15', 'sleep', 'kill.sh']]);
    const exits = lines(r.stdout, 'exit');
    expect(exits).toContainEqual([child, '2']);
    expect(exits).toContainEqual([/^script (\d+)$/m.exec(r.stdout)?.[1], '1']);
    // Everything else (the script, its `sleep 0.5`) exits normally: CLD_EXITED.
    expect(exits.filter(([p]) => p !== child).map(([, how]) => how)).toEqual(['1', '1']);
  });

  test('signal-handle fires for a caught signal with its handler, signal-discard for an ignored one', () => {
    const bash = script('trap.sh', "#!/bin/bash\ntrap 'echo caught' USR1\ntrap '' USR2\nkill -USR1 $$\nkill -USR2 $$\necho done\n");
    const r = dtrace(['-qn', `
      proc:::signal-handle /pid == $target/ { printf("handle %d %d\\n", args[0], args[2] != 0); }
      proc:::signal-discard /args[1]->pr_pid == $target && pid == $target/ { printf("discard %d\\n", args[2]); }
      proc:::signal-send /args[1]->pr_pid == $target && args[2] != SIGCHLD/ { printf("send %d\\n", args[2]); }`, '-c', bash]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('caught\n');
    expect(lines(r.stdout, 'handle').filter(([sig]) => sig !== '17')).toEqual([['10', '1']]);
    expect(lines(r.stdout, 'discard')).toEqual([['12']]);
    // The ignored SIGUSR2 is discarded, not sent.
    expect(lines(r.stdout, 'send')).toEqual([['10']]);
  });

  test('create names the child in the parent; lwp-create and lwp-exit the new thread', () => {
    const src = path.join(dir, 'threads.c'), prog = path.join(dir, 'threads');
    writeFileSync(src, `#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
static void *run(void *arg) { return arg; }
int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, run, NULL);
  pthread_join(t, NULL);
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, NULL, 0);
  printf("forked %d\\n", (int)pid);
  return 0;
}
`);
    gcc(src, prog, ['-pthread']);
    const r = dtrace(['-qn', `
      proc:::create /pid == $target/ { printf("create %d %d\\n", args[0]->pr_pid, args[0]->pr_ppid); }
      proc:::lwp-create /pid == $target/ { printf("lwp-create %d %d %d\\n", args[1]->pr_pid, args[0]->pr_lwpid != pid, args[0]->pr_lwpid); }
      proc:::lwp-exit /pid == $target/ { printf("lwp-exit %d\\n", tid); }`, '-c', prog]);
    expect(r.status, r.stderr).toBe(0);
    const forked = /^forked (\d+)$/m.exec(r.stdout)?.[1];
    expect(forked, r.stdout).toBeDefined();
    const target = lines(r.stdout, 'create')[0]?.[1];
    expect(lines(r.stdout, 'create')).toEqual([[forked, target]]);
    const lwp = lines(r.stdout, 'lwp-create');
    expect(lwp).toHaveLength(1);
    expect(lwp[0].slice(0, 2)).toEqual([target, '1']);
    // The thread exits and so does the process's own (last) thread. The thread wakes its joiner
    // before its exit probe fires, and CPUs' buffers are drained one after another, so the two
    // lines may come in either order.
    expect(lines(r.stdout, 'lwp-exit').map((l) => l[0]).sort()).toEqual([lwp[0][2], target].sort());
  });

  test('wakeup names the woken thread, in the waker; the sleeper went through sleep', () => {
    // The parent waits for its child; the child's exit wakes it.
    const sh = script('wait.sh', '#!/bin/sh\nsleep 0.3 &\nwait\n');
    const r = dtrace(['-qn', `
      sched:::wakeup /args[1]->pr_pid == $target && execname == "sleep"/ {
        printf("wakeup %d %d %d\\n", args[0]->pr_lwpid, ppid == $target, args[0]->pr_lwpid != tid); }
      sched:::sleep /pid == $target/ { @slept = count(); }
      END { printa("slept %@d\\n", @slept); }`, '-c', sh]);
    expect(r.status, r.stderr).toBe(0);
    const wakeups = lines(r.stdout, 'wakeup');
    expect(wakeups.length, r.stdout).toBeGreaterThan(0);
    for (const w of wakeups) expect(w.slice(1)).toEqual(['1', '1']);
    expect(new Set(wakeups.map((w) => w[0])).size).toBe(1);
    expect(Number(lines(r.stdout, 'slept')[0]?.[0])).toBeGreaterThan(0);
  });

  test('off-cpu describes the next thread, never the leaving one', () => {
    const r = dtrace(['-qn', 'sched:::off-cpu { @[args[0]->pr_lwpid == tid, args[1]->pr_pid == pid && pid != 0] = count(); } tick-300ms { exit(0); }']);
    expect(r.status, r.stderr).toBe(0);
    const keys = r.stdout.trim().split('\n').map((l) => l.trim().split(/\s+/).slice(0, 2).join(' '));
    expect(keys.length).toBeGreaterThan(0);
    // A thread may switch to another of its own process, but never to itself.
    for (const k of keys) expect(k).toMatch(/^0 [01]$/);
  });

  describe('io on a loop device', () => {
    let loop = '';
    const noLoop = !existsSync('/dev/loop-control') || spawnSync('losetup', ['--version']).status !== 0;
    beforeAll(() => {
      if (noLoop) return;
      const img = path.join(dir, 'disk.img');
      writeFileSync(img, Buffer.alloc(4 << 20));
      const r = spawnSync('losetup', ['-f', '--show', img], { encoding: 'utf8' });
      if (r.status === 0) loop = r.stdout.trim();
    });
    afterAll(() => {
      if (loop) spawnSync('losetup', ['-d', loop]);
    });

    test('start and done: direction, size, block, device and no file', (ctx) => {
    if (noLoop) ctx.skip('no loop devices here (/dev/loop-control or losetup missing)');
      if (!loop) throw new Error('losetup could not make a loop device');
      const name = path.basename(loop);
      const minor = Number(name.replace('loop', ''));
      const clause = `io:::start, io:::done /args[1]->dev_statname == "${name}"/ {
        printf("%s %s %d %d %d %d %s %s %d %s\\n", probename, args[0]->b_flags & B_WRITE ? "W" : args[0]->b_flags & B_READ ? "R" : "?",
          args[0]->b_bcount, args[0]->b_blkno, args[1]->dev_major, args[1]->dev_minor, args[1]->dev_statname,
          args[1]->dev_pathname, args[0]->b_edev, args[2]->fi_pathname); }`;
      const w = dtrace(['-qn', clause, '-c', `dd if=/dev/zero of=${loop} bs=4096 count=3 seek=5 oflag=direct status=none`]);
      expect(w.status, w.stderr).toBe(0);
      const dev = String((7 << 20) | minor);
      const expected = (probe: string, rw: string) => [40, 48, 56].map((blk) =>
        [probe, rw, '4096', String(blk), '7', String(minor), name, `/dev/${name}`, dev, '<none>']);
      // dd's three writes may be issued from either CPU, whose buffers are read one after the
      // other: order each probe's lines by block.
      const byBlock = (ls: string[][]) => ls.sort((x, y) => Number(x[2]) - Number(y[2]));
      const got = [...byBlock(lines(w.stdout, 'start')).map((l) => ['start', ...l]), ...byBlock(lines(w.stdout, 'done')).map((l) => ['done', ...l])];
      expect(got).toEqual([...expected('start', 'W'), ...expected('done', 'W')]);
      const rd = dtrace(['-qn', clause, '-c', `dd if=${loop} of=/dev/null bs=8192 count=1 skip=2 iflag=direct status=none`]);
      expect(rd.status, rd.stderr).toBe(0);
      expect(lines(rd.stdout, 'start')).toEqual([['R', '8192', '32', '7', String(minor), name, `/dev/${name}`, dev, '<none>']]);
      expect(lines(rd.stdout, 'done')).toEqual([['R', '8192', '32', '7', String(minor), name, `/dev/${name}`, dev, '<none>']]);
    });
  });
});

describe.skipIf(skip)(`proc:::exec and exec-failure${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dtrace-exec-'));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const clauses = (who: string) => `
    proc:::exec /${who}/ { printf("exec %d %s %s\\n", pid, execname, args[0]); }
    proc:::exec-success /${who}/ { printf("success %d %s\\n", pid, execname); }
    proc:::exec-failure /${who}/ { printf("failure %d %d %s\\n", pid, args[0], execname); }`;

  test('dtrace -lv types exec args[0] as string and exec-failure args[0] as int', () => {
    const r = dtrace(['-lv', '-n', 'proc:::exec', '-n', 'proc:::exec-failure']);
    expect(r.status, r.stderr).toBe(0);
    expect([...r.stdout.matchAll(/ (exec\S*)$|^\s+args\[(\d+)\]: (.*)$/gm)].map((m) => m[1] ?? `${m[2]} ${m[3]}`))
      .toEqual(['exec', '0 string', 'exec-failure', '0 int']);
  });

  test('exec names the path before the image loads; exec-success or exec-failure (ENOENT) follows', () => {
    const sh = script('exec.sh', '#!/bin/sh\n/bin/true\n/nonexistent/prog\nexit 0\n');
    const r = dtrace(['-qn', clauses('ppid == $target'), '-c', sh]);
    expect(r.status, r.stderr).toBe(0);
    // Each CPU's records come in their own order: sorted by path.
    const execs = lines(r.stdout, 'exec').sort((x, y) => x[2].localeCompare(y[2]));
    // In the forked shells, before the new image: execname is still the script's.
    expect(execs.map(([, name, file]) => [name, file])).toEqual([['exec.sh', '/bin/true'], ['exec.sh', '/nonexistent/prog']]);
    const [ok, missing] = execs.map(([p]) => p);
    expect(ok).not.toBe(missing);
    expect(lines(r.stdout, 'success')).toEqual([[ok, 'true']]);
    expect(lines(r.stdout, 'failure')).toEqual([[missing, '2', 'exec.sh']]);
  });

  test('execveat fires them too, with the path as given', () => {
    const src = path.join(dir, 'at.c'), prog = path.join(dir, 'at');
    writeFileSync(src, `#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(void) {
  // The paths on the stack, in memory already present: a BPF program cannot fault a page in.
  char missing[] = "no-such-file", found[] = "/bin/true";
  char *argv[] = { "true", NULL }, *envp[] = { NULL };
  if (syscall(SYS_execveat, AT_FDCWD, missing, argv, envp, 0) == -1) perror("execveat");
  syscall(SYS_execveat, AT_FDCWD, found, argv, envp, 0);
  return 1;
}
`);
    gcc(src, prog);
    const r = dtrace(['-qn', clauses('pid == $target'), '-c', prog]);
    expect(r.status, r.stderr).toBe(0);
    const target = lines(r.stdout, 'failure')[0]?.[0];
    expect(lines(r.stdout, 'exec').filter(([, name]) => name === 'at').sort((x, y) => x[2].localeCompare(y[2])))
      .toEqual([[target, 'at', '/bin/true'], [target, 'at', 'no-such-file']]);
    expect(lines(r.stdout, 'failure')).toEqual([[target, '2', 'at']]);
    expect(lines(r.stdout, 'success')).toContainEqual([target, 'true']);
  });
});
