// Faults, the ERROR probe, destructive actions and verifier rejections, on the real kernel with
// real processes (test/e2e/progs/destr-victim.c: prints its pid and a buffer's address, then
// calls getppid() and prints the buffer every 20 ms).
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, dtrace, gcc, kernelUnavailable, withEnv } from '../helpers/run.js';

const skip = kernelUnavailable();
let victimPath = '';
const victims: ChildProcess[] = [];

interface Victim {
  child: ChildProcess;
  pid: number;
  buf: string; // address of its buffer, 0x...
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startVictim(): Promise<Victim> {
  const child = spawn(victimPath, [], { stdio: ['ignore', 'pipe', 'inherit'] });
  victims.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })));
  while (!out.includes('\n')) await new Promise((r) => setTimeout(r, 10));
  const [pid, buf] = out.split('\n')[0].split(' ');
  return { child, pid: Number(pid), buf, output: () => out, exited };
}

/** The state letter of /proc/PID/stat (R, S, T, ...). */
function procState(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
}

describe.skipIf(skip)(`destructive actions and faults${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(() => {
    const work = mkdtempSync(path.join(tmpdir(), 'dtrace-destr-'));
    victimPath = path.join(work, 'destr-victim');
    gcc(path.join(ROOT, 'test/e2e/progs/destr-victim.c'), victimPath);
  });

  afterEach(() => {
    for (const v of victims.splice(0)) {
      try { process.kill(v.pid!, 'SIGCONT'); v.kill('SIGKILL'); } catch { /* gone */ }
    }
  });

  test('raise(SIGUSR1) kills the process that fired the probe, with SIGUSR1', async () => {
    const v = await startVictim();
    const r = dtrace(['-wqn', 'syscall::getppid:entry /pid == $1/ { raise(SIGUSR1); exit(0); }', String(v.pid)]);
    expect(r.status, r.stderr).toBe(0);
    const end = await v.exited;
    expect(end.signal).toBe('SIGUSR1');
  });

  test('stop() stops the process (state T)', async () => {
    const v = await startVictim();
    const r = dtrace(['-wqn', 'syscall::getppid:entry /pid == $1/ { stop(); exit(0); }', String(v.pid)]);
    expect(r.status, r.stderr).toBe(0);
    let state = '';
    for (let i = 0; i < 50 && state !== 'T'; i++) {
      state = procState(v.pid);
      if (state !== 'T') await new Promise((res) => setTimeout(res, 20));
    }
    expect(state).toBe('T');
  });

  test('copyoutstr() changes the buffer the process prints', async (ctx) => {
    const v = await startVictim();
    const r = dtrace(['-wqn', 'syscall::getppid:entry /pid == $1/ { copyoutstr("changed", $2, 8); exit(0); }', String(v.pid), v.buf]);
    // A kernel in lockdown (integrity or confidentiality) refuses bpf_probe_write_user.
    if (/locked down/.test(r.stderr)) {
      expect(r.stderr).toMatch(/^dtrace: could not enable tracing: BPF program load for 'syscall:vmlinux:getppid:entry' failed: Invalid argument: the verifier rejected clause #1 \(syscall::getppid:entry\): copyout\( \) and copyoutstr\( \) need bpf_probe_write_user, which this kernel forbids \(it is locked down\)\n$/);
      expect(r.status).toBe(1);
      ctx.skip('this kernel is locked down: bpf_probe_write_user is refused');
    }
    expect(r.status, r.stderr).toBe(0);
    for (let i = 0; i < 50 && !v.output().includes('changed\n'); i++) await new Promise((res) => setTimeout(res, 20));
    expect(v.output()).toContain('changed\n');
  });

  test('system() runs the formatted command with the value recorded in probe context', async () => {
    const v = await startVictim();
    const r = dtrace(['-wqn', 'syscall::getppid:entry /pid == $1/ { system("echo pid %d", pid); exit(0); }', String(v.pid)]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(`pid ${v.pid}\n\n`);
  });

  test('without -w, destructive actions are not allowed and nothing is traced', () => {
    const r = dtrace(['-n', 'syscall::getppid:entry { stop(); }']);
    expect(r.stderr).toBe("dtrace: description 'syscall::getppid:entry ' matched 1 probe\n" +
      'dtrace: could not enable tracing: Destructive actions not allowed\n');
    expect(r.status).toBe(1);
  });

  test('a fault in a system call probe fires ERROR in that process, and tracing goes on', async () => {
    const v = await startVictim();
    const r = dtrace(['-qn', [
      'syscall::getppid:entry /pid == $1/ { x = *(int *)16; }',
      'syscall::getppid:entry /pid == $1/ { printf("next clause %d\\n", pid); exit(0); }',
      'ERROR { printf("ERROR %d %d %d 0x%x %s\\n", arg1, arg2, arg4, arg5, execname); }',
    ].join(' '), String(v.pid)]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(`ERROR 1 1 1 0x10 destr-victim\nnext clause ${v.pid}\n\n`);
    expect(r.stderr).toMatch(/^dtrace: error on enabled probe ID 2 \(ID \d+: syscall:vmlinux:getppid:entry\): invalid address \(0x10\) in action #1 at DIF offset \d+\n$/);
  });

  test('a verifier rejection names the clause; -v adds the verifier log', () => {
    const prog = 'syscall::getppid:entry { @ = count(); } syscall::getppid:entry /pid == 1/ { trace(1); }';
    const env = { DTRACE_TEST_REJECT_CLAUSE: '2' };
    const r = withEnv(env, () => dtrace(['-qn', prog]));
    expect(r.stderr).toBe("dtrace: could not enable tracing: BPF program load for 'syscall:vmlinux:getppid:entry' failed: Permission denied: the verifier rejected clause #2 (syscall::getppid:entry): R6 !read_ok\n");
    expect(r.status).toBe(1);
    const v = withEnv(env, () => dtrace(['-v', '-qn', prog]));
    expect(v.stderr).toMatch(/^BPF: 0: \(79\) r0 = \*\(u64 \*\)\(r6 \+0\)\nBPF: R6 !read_ok\n/m);
    expect(v.stderr).toContain('the verifier rejected clause #2');
    expect(v.status).toBe(1);
  });

  test('the ERROR clause runs once per fault, in probe context, while tracing goes on', async () => {
    const v = await startVictim();
    const r = dtrace(['-qn', [
      'syscall::getppid:entry /pid == $1/ { x = *(int *)8; }',
      'ERROR { @[probename, arg4, pid == $1] = count(); }',
      'syscall::getppid:return /pid == $1/ { n++; }',
      'syscall::getppid:return /n == 5/ { exit(0); }',
    ].join(' '), String(v.pid)]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^\n\s+ERROR\s+1\s+1\s+5\n$/);
    expect(r.stderr.split('\n').filter((l) => l.includes('invalid address (0x8)')).length).toBe(5);
  });
});

