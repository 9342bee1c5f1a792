// Clauses that do not multiply (src/device/linux/chain.ts): a probe whose clauses are too many for
// one BPF program is loaded as a chain of programs joined by tail calls, on the real kernel, with
// a real process firing the probe (test/e2e/progs/destr-victim.c calls getppid() every 20 ms).
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, dtrace, gcc, kernelUnavailable, withEnv } from '../helpers/run.js';

const skip = kernelUnavailable();
let victimPath = '', scriptPath = '';
const victims: ChildProcess[] = [];

/** The victim's pid. Its output goes to a file: a pipe nobody drains while dtrace runs (spawnSync)
 * fills up and stops it before the chain has loaded. */
async function startVictim(): Promise<number> {
  const out = path.join(path.dirname(scriptPath), `victim-${victims.length}.out`);
  const fd = openSync(out, 'w');
  const child = spawn(victimPath, [], { stdio: ['ignore', fd, 'inherit'] });
  closeSync(fd);
  victims.push(child);
  while (!readFileSync(out, 'utf8').includes('\n')) await new Promise((r) => setTimeout(r, 10));
  return Number(readFileSync(out, 'utf8').split(' ')[0]);
}

const N = 60;
/** N clauses with string work on the victim's getppid(), counting in a clause-local; the last exits. */
function script(): string {
  const probe = 'syscall::getppid:entry /pid == $1/';
  const clause = (i: number) => `${probe}\n{\n\tthis->n = ${i === 0 ? '1' : 'this->n + 1'};\n\tthis->s = strjoin("c${i}-", execname);\n` +
    `\tprintf("%d %d %s %s\\n", ${i}, this->n, basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));\n}\n`;
  return Array.from({ length: N }, (_, i) => clause(i)).join('') + `${probe}\n{\n\texit(0);\n}\n`;
}


describe.skipIf(skip)(`a probe's clauses as a chain of programs${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(() => {
    const work = mkdtempSync(path.join(tmpdir(), 'dtrace-chain-'));
    victimPath = path.join(work, 'destr-victim');
    gcc(path.join(ROOT, 'test/e2e/progs/destr-victim.c'), victimPath);
    scriptPath = path.join(work, 'chain.d');
    writeFileSync(scriptPath, script());
  });

  afterEach(() => {
    for (const v of victims.splice(0)) v.kill('SIGKILL');
  });

  test(`${N} string clauses on one attached probe run in order, one firing, clause-locals shared`, async () => {
    const pid = await startVictim();
    const r = withEnv({ DTRACE_BPF_STATS: '1' }, () => dtrace(['-q', '-s', scriptPath, String(pid)], { timeoutMs: 110_000 }));
    expect(r.status, r.stderr).toBe(0);
    // More than one program was loaded for the probe (else this test shows nothing about chains).
    const programs = r.stderr.match(/BPF program for 'syscall:vmlinux:getppid:entry'/g) ?? [];
    expect(programs.length, r.stderr).toBeGreaterThan(1);
    const want = Array.from({ length: N }, (_, i) => `${i} ${i + 1} c${i}-destr-victim c${i}-destr-victim\n`).join('');
    expect(r.stdout, `${r.stderr} ${pid} ${r.signal}`).toBe(`${want}\n`);
  });

  // The first, a middle, a later link's and the last string clause (rejection.ts's bisection).
  test.each([50, 1, 40, 60])('a verifier rejection of clause %i names it', (n) => {
    const r = withEnv({ DTRACE_TEST_REJECT_CLAUSE: String(n) }, () => dtrace(['-q', '-s', scriptPath, '1'], { timeoutMs: 110_000 }));
    expect(r.stderr).toBe(`dtrace: could not enable tracing: BPF program load for 'syscall:vmlinux:getppid:entry' failed: Permission denied: the verifier rejected clause #${n} (syscall::getppid:entry): R6 !read_ok\n`);
    expect(r.status).toBe(1);
  });
});
