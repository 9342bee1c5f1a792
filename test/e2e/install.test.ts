// Install conventions: dtrace at /usr/sbin/dtrace for `#!/usr/sbin/dtrace -qs` scripts
// (scripts/link-dtrace.sh, run by scripts/setup-system.sh), beside systemtap-sdt-dev's
// /usr/bin/dtrace. The link logic runs on directories made here (SBIN, BIN); the script's first
// line runs for real through a link made the same way.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, symlinkSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, kernelUnavailable } from '../helpers/run.js';

const skip = kernelUnavailable();
let work = '';
beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'dtrace-install-'));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A fresh pair of directories standing for /usr/sbin and /usr/bin. */
function dirs(name: string) {
  const sbin = path.join(work, name, 'sbin');
  const bin = path.join(work, name, 'bin');
  mkdirSync(sbin, { recursive: true });
  mkdirSync(bin, { recursive: true });
  return { sbin, bin };
}

function link(d: { sbin: string; bin: string }) {
  const r = spawnSync('bash', [path.join(ROOT, 'scripts/link-dtrace.sh')], { env: { ...process.env, SBIN: d.sbin, BIN: d.bin }, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const DTRACE = path.join(ROOT, 'bin/dtrace');

describe('/usr/sbin/dtrace', () => {
  test('a free place gets the link; an old node-dtrace link (even dangling) is updated', () => {
    const d = dirs('free');
    expect(link(d)).toEqual({ status: 0, stdout: `link-dtrace: ${d.sbin}/dtrace -> ${DTRACE}\n`, stderr: '' });
    expect(readlinkSync(path.join(d.sbin, 'dtrace'))).toBe(DTRACE);
    rmSync(path.join(d.sbin, 'dtrace'));
    symlinkSync('/nonexistent/checkout/bin/dtrace', path.join(d.sbin, 'dtrace'));
    expect(link(d).status).toBe(0);
    expect(readlinkSync(path.join(d.sbin, 'dtrace'))).toBe(DTRACE);
  });

  test('a foreign dtrace is left alone, and said so', () => {
    const d = dirs('foreign');
    writeFileSync(path.join(d.sbin, 'dtrace'), '#!/bin/sh\necho other\n');
    const r = link(d);
    expect(r).toEqual({ status: 0, stdout: '', stderr: `link-dtrace: ${d.sbin}/dtrace exists and is not node-dtrace's; left alone (dtrace is ${ROOT}/bin/dtrace)\n` });
    expect(readFileSync(path.join(d.sbin, 'dtrace'), 'utf8')).toBe('#!/bin/sh\necho other\n');
  });

  test("systemtap-sdt-dev's /usr/bin/dtrace is kept, and the way to have both is said", () => {
    const d = dirs('systemtap');
    // The shape of systemtap's generator: a Python script that writes sys/sdt.h headers.
    const stap = '#!/usr/bin/python3\n# This handles the systemtap equivalent of\n# $(DTRACE) $(DTRACEFLAGS) -G -s $^\nimport sys\n';
    writeFileSync(path.join(d.bin, 'dtrace'), stap);
    const r = link(d);
    expect(r.stdout).toBe(`link-dtrace: ${d.sbin}/dtrace -> ${DTRACE}\n`);
    expect(r.stderr).toBe(
      `link-dtrace: ${d.bin}/dtrace is systemtap-sdt-dev's SDT generator; kept for the build systems that call it.\n` +
      `link-dtrace: root's PATH finds ${d.sbin}/dtrace first; 'npm link' would refuse to replace ${d.bin}/dtrace (use ${d.sbin}/dtrace, or npm link --force to replace it).\n`);
    expect(readFileSync(path.join(d.bin, 'dtrace'), 'utf8')).toBe(stap);
    // With both on PATH, sbin first as in root's, `dtrace` is this one.
    const which = spawnSync('sh', ['-c', 'command -v dtrace'], { env: { ...process.env, PATH: `${d.sbin}:${d.bin}:/usr/bin:/bin` }, encoding: 'utf8' });
    expect(which.stdout).toBe(`${d.sbin}/dtrace\n`);
  });

  test('a #!SBIN/dtrace -qs script runs, with its macro arguments', (ctx) => {
    if (skip) ctx.skip(skip);
    const d = dirs('shebang');
    expect(link(d).status).toBe(0);
    const script = path.join(work, 'hello.d');
    writeFileSync(script, `#!${d.sbin}/dtrace -qs\nBEGIN { printf("hello %s\\n", $$1); exit(0); }\n`);
    chmodSync(script, 0o755);
    const r = spawnSync(script, ['world'], { encoding: 'utf8', timeout: 60_000 });
    expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ status: 0, stdout: 'hello world\n\n', stderr: '' });
  });
});
