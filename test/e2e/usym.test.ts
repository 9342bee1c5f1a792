// User symbols as DTrace prints them: separate debug files (by build-id, or .gnu_debuglink) name a
// stripped library's internal functions, aliases come out under the name users know, and a -c
// process's addresses are named after it has exited.
import { beforeAll, describe, expect, test } from 'vitest';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, dtrace, gcc, kernelUnavailable } from '../helpers/run.js';
import { readElf } from '../../src/sys/elf.js';
import { debugFile } from '../../src/sys/symbols.js';

const LIBC = '/lib/x86_64-linux-gnu/libc.so.6';
const skip = kernelUnavailable() ?? (existsSync('/sys/bus/event_source/devices/uprobe/type') ? null : 'the kernel has no uprobe PMU');
const libc = existsSync(LIBC) ? readElf(LIBC) : null;
const dbgSkip = skip ?? (libc && debugFile(libc, LIBC) ? null : 'libc\'s debug symbols are not installed (scripts/setup-system.sh installs libc6-dbg)');
let work = '';

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'dtrace-usym-'));
  gcc(path.join(ROOT, 'test/e2e/progs/qsort-spin.c'), path.join(work, 'qsort-spin'), ['-O1']);
  gcc(path.join(ROOT, 'test/e2e/progs/libc-calls.c'), path.join(work, 'libc-calls'));
});

describe.skipIf(dbgSkip)(`user symbols from debug files${dbgSkip ? ` (skipped: ${dbgSkip})` : ''}`, () => {
  test('the debug file is found by build-id and holds libc\'s local functions', () => {
    const dbg = debugFile(libc!, LIBC)!;
    expect(dbg.buildId()).toBe(libc!.buildId());
    expect(dbg.functions().some((f) => f.name.startsWith('msort_with_tmp'))).toBe(true);
    // libc.so.6 itself exports no such name.
    expect(libc!.functions().some((f) => f.name.startsWith('msort_with_tmp'))).toBe(false);
  });

  test('a profile of a C program names internal libc frames (ufunc, umod, ustack)', () => {
    const r = dtrace(['-q', '-n', `profile-997 /pid == $target/ { @f[ufunc(arg1)] = count(); @m[umod(arg1)] = count(); @s[ustack(1)] = count(); }`,
      '-c', `${path.join(work, 'qsort-spin')} 15`]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^\s+libc\.so\.6`msort_with_tmp[.\w]*\s+\d+$/m);
    expect(r.stdout).toMatch(/^\s+libc\.so\.6\s+\d+$/m);
    expect(r.stdout).toMatch(/^\s+libc\.so\.6`msort_with_tmp[.\w]*\+0x[0-9a-f]+\n\s+\d+$/m);
    // Most libc samples are named (a PLT stub may not be: it is no function).
    const named = [...r.stdout.matchAll(/^\s+libc\.so\.6`(\S+)\s+(\d+)$/gm)];
    const sum = (ms: RegExpMatchArray[]) => ms.reduce((n, m) => n + Number(m[2]), 0);
    expect(sum(named.filter((m) => !m[1].startsWith('0x')))).toBeGreaterThan(10 * sum(named.filter((m) => m[1].startsWith('0x'))));
  });
});

describe.skipIf(skip)(`user symbols${skip ? ` (skipped: ${skip})` : ''}`, () => {
  test('aliases print as users know them, and a -c process is named after it exits', () => {
    // The program exits at once; the aggregations are printed after it has gone.
    const r = dtrace(['-q', '-n', 'pid$target:libc.so.6:free:entry, pid$target:libc.so.6:malloc:entry { @[usym(uregs[R_PC]), umod(uregs[R_PC])] = count(); }',
      '-c', `${path.join(work, 'libc-calls')} 30`]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^\s+libc\.so\.6`free\s+libc\.so\.6\s+30$/m);
    expect(r.stdout).toMatch(/^\s+libc\.so\.6`malloc\s+libc\.so\.6\s+30$/m);
    expect(r.stdout).not.toMatch(/cfree|__libc_free|__libc_malloc/);
  });
});
