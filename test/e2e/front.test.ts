// The D front end on the real kernel, where a workload is needed: typed args[] of system calls,
// if/else over many firings, and translators of a traced process.
import { describe, expect, test } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dtrace, kernelUnavailable } from '../helpers/run.js';

const skip = kernelUnavailable();

describe.skipIf(skip)(`front end on the kernel${skip ? ` (skipped: ${skip})` : ''}`, () => {
  test('args[] of syscall::write:entry are typed from the tracepoint format', () => {
    const r = dtrace(['-qn', `syscall::write:entry /pid == $target/ {
      printf("[%s] fd=%d len=%d sizeof=%d\\n", copyinstr(args[1], args[2]), args[0], args[2], sizeof (args[0]));
      exit(0);
    }`, '-c', '/bin/echo typed-args']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('[typed-args\n] fd=1 len=11 sizeof=4\n');
  });

  test('if/else picks a branch at every firing', () => {
    // A shell script's echo builtin writes each line with one write(2).
    const script = path.join(mkdtempSync(path.join(tmpdir(), 'front-')), 'writes.sh');
    writeFileSync(script, '#!/bin/sh\necho 1 >/dev/null\necho 22 >/dev/null\necho 333 >/dev/null\necho 4444567 >/dev/null\n', { mode: 0o755 });
    const r = dtrace(['-qn', `syscall::write:entry /pid == $target/ {
      if (args[2] > 4) { @big = count(); } else { @small = count(); }
    }
    END { printa("big %@d\\n", @big); printa("small %@d\\n", @small); }`, '-c', script]);
    expect(r.status).toBe(0);
    // Writes of 2, 3 and 4 bytes are small; the one of 8 bytes is big.
    expect(r.stdout).toBe('big 1\nsmall 3\n\n');
  });

  test('curpsinfo and curlwpsinfo describe the traced process', () => {
    const r = dtrace(['-qn', `syscall::write:entry /pid == $target/ {
      printf("%d %d %s %d\\n", curpsinfo->pr_pid == $target, curlwpsinfo->pr_lwpid == tid, curpsinfo->pr_fname, curpsinfo->pr_ppid == ppid);
      exit(0);
    }`, '-c', '/bin/echo x']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('1 1 echo 1\n');
  });
});
