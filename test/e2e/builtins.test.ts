// The stack and register built-ins on the real kernel -- caller, ucaller, stackdepth, ustackdepth,
// uregs[] and regs[] -- against a workload built here (test/e2e/progs/builtins-prog.c:
// main -> outer -> inner(8484) -> my_getppid, which makes the getppid system call itself).
import { beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, dtrace, gcc, kernelUnavailable } from '../helpers/run.js';

const skip = kernelUnavailable();
let prog = '';

/** The lines of stdout, trimmed, without empty ones. */
function lines(stdout: string): string[] {
  return stdout.split('\n').map((l) => l.trim()).filter(Boolean);
}

describe.skipIf(skip)(`stack and register built-ins${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(() => {
    const work = mkdtempSync(path.join(tmpdir(), 'dtrace-builtins-'));
    prog = path.join(work, 'builtinsprog');
    gcc(path.join(ROOT, 'test/e2e/progs/builtins-prog.c'), prog, ['-fno-omit-frame-pointer']);
  });

  test('ucaller is in the function that called my_getppid; uregs[R_PC] is in my_getppid; ustackdepth counts the frames', () => {
    const r = dtrace(['-qn', `syscall::getppid:entry /pid == $target/ {
      printf("ustackdepth %d\\n", ustackdepth); ufunc(ucaller); printf("\\n"); ufunc(uregs[R_PC]); printf("\\n");
      printf("pc-is-first-frame %d\\n", uregs[R_PC] == ucaller ? 0 : 1); ustack(2); exit(0); }`, '-c', prog]);
    expect(r.status, r.stderr).toBe(0);
    const out = lines(r.stdout);
    const depth = Number(/^ustackdepth (\d+)$/.exec(out[0])?.[1]);
    // my_getppid, inner, outer, main and libc's start: at least the workload's four.
    expect(depth, r.stdout).toBeGreaterThanOrEqual(4);
    expect(out[1]).toBe('builtinsprog`inner');
    expect(out[2]).toBe('builtinsprog`my_getppid');
    expect(out[3]).toBe('pc-is-first-frame 1');
    // ustack()'s first two frames are uregs[R_PC] and ucaller.
    expect(out[4]).toMatch(/^builtinsprog`my_getppid\+0x[0-9a-f]+$/);
    expect(out[5]).toMatch(/^builtinsprog`inner\+0x[0-9a-f]+$/);
  });

  test('ustackdepth grows by one with each nested call', () => {
    // Both at a function's first instruction: my_getppid's entry has inner's frame more than inner's.
    const r = dtrace(['-qn', `pid$target::inner:entry { self->d = ustackdepth; }
      pid$target::my_getppid:entry /self->d/ { printf("%d\\n", ustackdepth - self->d); exit(0); }`, '-c', prog]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('1');
  });

  test('uregs[R_RDI] at a function entry is its first argument; uregs[R_PC] is the function', () => {
    const r = dtrace(['-qn', `pid$target::inner:entry { printf("rdi %d arg0 %d\\n", uregs[R_RDI], arg0); ufunc(uregs[R_PC]); printf("\\n"); exit(0); }`, '-c', prog]);
    expect(r.status, r.stderr).toBe(0);
    expect(lines(r.stdout)).toEqual(['rdi 8484 arg0 8484', 'builtinsprog`inner']);
  });

  test('uregs[R_SP] at a function entry points at the return address into its caller', () => {
    const r = dtrace(['-qn', `pid$target::inner:entry { ufunc(*(uint64_t *)copyin(uregs[R_SP], 8)); printf("\\n"); exit(0); }`, '-c', prog]);
    expect(r.status, r.stderr).toBe(0);
    expect(lines(r.stdout)).toEqual(['builtinsprog`outer']);
  });

  test('stackdepth > 0 at a system call probe, and caller is the second frame of stack()', () => {
    const r = dtrace(['-qn', `syscall::getppid:entry /pid == $target/ { printf("depth>0 %d\\n", stackdepth > 0); printf("%a\\n", caller); stack(2); exit(0); }`, '-c', prog]);
    expect(r.status, r.stderr).toBe(0);
    const out = lines(r.stdout);
    expect(out[0]).toBe('depth>0 1');
    expect(out[1]).toMatch(/^vmlinux`\w+\+0x[0-9a-f]+$/);
    expect(out[3]).toBe(out[1]);
  });
});
