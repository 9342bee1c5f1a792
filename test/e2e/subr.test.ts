// Subroutines that read user memory (copyin, copyinstr, copyinto), on the real kernel: a small
// program opens a known path and writes a known buffer; dtrace reads them at the syscall entry.
import { beforeAll, describe, expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, dtrace, dtraceAsync, gcc, kernelUnavailable } from '../helpers/run.js';

const skip = kernelUnavailable();
let prog = '';

/** Run dtrace with a D program, start the workload once dtrace is up, return dtrace's result. */
async function traceWorkload(script: string) {
  const d = dtraceAsync(['-q', '-n', script]);
  // The workload waits 1.5 s before its system calls, which leaves dtrace time to attach.
  await new Promise((r) => setTimeout(r, 300));
  const w = spawn(prog, [], { stdio: 'ignore' });
  const timer = setTimeout(() => d.child.kill('SIGINT'), 20_000);
  const r = await d.done;
  clearTimeout(timer);
  w.kill();
  return r;
}

describe.skipIf(skip)(`subroutines on user memory${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(() => {
    const work = mkdtempSync(path.join(tmpdir(), 'dtrace-subr-'));
    prog = path.join(work, 'subr-open');
    gcc(path.join(ROOT, 'test/e2e/progs/subr-open.c'), prog);
  });

  test('copyinstr(arg1) on openat(2) gives the path; a size bounds it', async () => {
    const r = await traceWorkload(
      'syscall::openat:entry /execname == "subr-open" && index(copyinstr(arg1), "dtrace-subr") >= 0/ ' +
      '{ printf("[%s] [%s] [%s]\\n", copyinstr(arg1), copyinstr(arg1, 8), basename(copyinstr(arg1))); exit(0); }');
    expect(r.stdout).toBe('[/tmp/dtrace-subr-known-path] [/tmp/dtr] [dtrace-subr-known-path]\n\n');
    expect(r.status).toBe(0);
  }, 30_000);

  test('copyin(arg1, 4) on write(2) gives the bytes of the buffer', async () => {
    const r = await traceWorkload(
      'syscall::write:entry /execname == "subr-open"/ { printf("[%s] [%x]\\n", copyinstr(arg1, 4), *(uint32_t *)copyin(arg1, 4)); exit(0); }');
    expect(r.stdout).toBe('[ABCD] [44434241]\n\n');
    expect(r.status).toBe(0);
  }, 30_000);

  test('inet_ntoa() and inet_ntop(AF_INET) of 4 bytes copied in', async () => {
    const r = await traceWorkload(
      'syscall::write:entry /execname == "subr-open"/ { p = copyin(arg1, 4); printf("[%s] [%s]\\n", inet_ntoa((uint32_t *)p), inet_ntop(2, p)); exit(0); }');
    expect(r.stdout).toBe('[65.66.67.68] [65.66.67.68]\n\n');
    expect(r.status).toBe(0);
  }, 30_000);

  test('copyinto() fills alloca() memory', async () => {
    const r = await traceWorkload(
      'syscall::write:entry /execname == "subr-open"/ { p = (char *)alloca(16); copyinto(arg1, 8, p); printf("[%s]\\n", stringof(p)); exit(0); }');
    expect(r.stdout).toBe('[ABCDEFGH]\n\n');
    expect(r.status).toBe(0);
  }, 30_000);

  test('a bad user address is an ERROR probe firing and tracing goes on', () => {
    const r = dtrace(['-q', '-n', 'BEGIN { trace(copyinstr(1)); } BEGIN { printf("after\\n"); exit(0); }']);
    expect(r.stderr).toMatch(/^dtrace: error on enabled probe ID 2 \(ID 1: dtrace:::BEGIN\): invalid address \(0x1\) in action #1 at DIF offset \d+\n$/);
    expect(r.stdout).toBe('after\n\n');
    expect(r.status).toBe(0);
  });

  test('bcopy() copies kernel memory into alloca() memory', () => {
    const r = dtrace(['-q', '-n',
      'BEGIN { p = (uint64_t *)alloca(16); bcopy(curthread, p, 16); printf("%d %d\\n", p[0] == *(uint64_t *)curthread, p[1] == ((uint64_t *)curthread)[1]); exit(0); }']);
    expect(r.stdout).toBe('1 1\n\n');
    expect(r.status).toBe(0);
  });
});
