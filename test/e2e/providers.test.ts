// Kernel providers on the real kernel: all system calls at once through the raw syscall
// dispatcher, a probe the kernel refuses, and the probe listing. Cases that are a program and its
// expected output are in test/e2e/corpus/providers/*.dtest.
import { beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, writeFileSync, rmdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { listEvents, mountTracefs } from '../../src/providers/tracefs.js';
import { spawn, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, dtrace, gcc, kernelUnavailable } from '../helpers/run.js';

const skip = kernelUnavailable();
let work = '';
const prog = (name: string) => path.join(work, name);

describe.skipIf(skip)(`providers${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(() => {
    work = mkdtempSync(path.join(tmpdir(), 'dtrace-prov-'));
  });

  test('enabling all syscall entry probes loads and attaches every one', async () => {
    const { compile } = await import('../../src/compiler/compile.js');
    const { writeDof } = await import('../../src/dof/writer.js');
    const { LinuxDevice } = await import('../../src/device/linux/device.js');
    const { ProbeRegistry } = await import('../../src/providers/registry.js');
    const registry = new ProbeRegistry();
    const t0 = performance.now();
    const compiled = compile([{ kind: 'n', text: 'syscall:::entry { @[probefunc] = count(); }', name: 'n' }] as never, {
      registry, options: new Map(), macroArgs: [], macros: new Map(), zdefs: false,
    } as never);
    const dof = writeDof(compiled.program);
    const t1 = performance.now();
    const device = new LinuxDevice(registry, { verbose: false });
    try {
      const enabled = device.enable(dof);
      device.go();
      const t2 = performance.now();
      console.log(`syscall:::entry: ${enabled.probes.length} probes; compiled in ${(t1 - t0).toFixed(0)} ms, ` +
        `translated, loaded and attached in ${(t2 - t1).toFixed(0)} ms`);
      // How fast is a benchmark's figure (scripts/bench, syscalls), not a timed test's.
      expect(enabled.probes.length).toBeGreaterThan(300);
    } finally {
      device.stop();
      device.close();
    }
  });

  test('a probe the kernel refuses fails the whole enabling, saying which and why', async () => {
    // A uprobe cannot go on a lock-prefixed instruction; DTrace then fails the enabling and exits.
    writeFileSync(prog('lockloop.c'), '#include <unistd.h>\nint v;\nvoid f(void) { __atomic_fetch_add(&v, 1, __ATOMIC_SEQ_CST); }\nint main(void) { for (;;) { f(); usleep(1000); } }\n');
    gcc(prog('lockloop.c'), prog('lockloop'));
    const dis = spawnSync('objdump', ['-d', '--no-show-raw-insn', prog('lockloop')], { encoding: 'utf8' }).stdout;
    const f = /^([0-9a-f]+) <f>:\n((?:\s+[0-9a-f]+:.*\n)+)/m.exec(dis)!;
    const lock = /^\s+([0-9a-f]+):\s+lock /m.exec(f[2])!;
    const off = (parseInt(lock[1], 16) - parseInt(f[1], 16)).toString(16);
    const child = spawn(prog('lockloop'), [], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 100));
      const r = dtrace(['-qn', `pid${child.pid}:a.out:f:entry { trace(1); } pid${child.pid}:a.out:f:${off} { trace(2); }`]);
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(new RegExp(`^dtrace: failed to enable pid${child.pid}:lockloop:f:${off}: the kernel cannot place a uprobe on the instruction in \\S+lockloop at offset 0x[0-9a-f]+\n$`, 'm'));
    } finally {
      child.kill();
    }
  });

  test('dtrace -l lists every provider\'s probes, more than 2,000', () => {
    const t0 = performance.now();
    const r = dtrace(['-l']);
    const ms = performance.now() - t0;
    console.log(`dtrace -l: ${r.stdout.split('\n').length - 2} probes in ${ms.toFixed(0)} ms (with Node start-up)`);
    expect(r.status, r.stderr).toBe(0);
    const rows = r.stdout.trimEnd().split('\n').slice(1);
    expect(rows.length).toBeGreaterThan(2000);
    const providers = new Set(rows.map((l) => l.trim().split(/\s+/)[1]));
    for (const p of ['dtrace', 'profile', 'syscall', 'sdt', 'proc', 'sched', 'io']) expect(providers).toContain(p);
  });

  test('dtrace -l with -P, -m, -f, -n, -i and -v', () => {
    const count = (args: string[]) => dtrace(['-l', ...args]).stdout.trimEnd().split('\n').length - 1;
    expect(count(['-P', 'sdt'])).toBeGreaterThan(1000);
    expect(count(['-P', 'syscall'])).toBeGreaterThan(600);
    expect(count(['-m', 'sched'])).toBeGreaterThan(10);
    expect(count(['-f', 'getppid'])).toBe(2);
    const exec = dtrace(['-l', '-n', 'sdt:sched::sched_process_exec']);
    expect(exec.stdout).toMatch(/^ +\d+ +sdt +sched +sched_process_exec\n$/m);
    const id = exec.stdout.trimEnd().split('\n')[1].trim().split(/\s+/)[0];
    expect(dtrace(['-l', '-i', id]).stdout).toBe(exec.stdout);
    const v = dtrace(['-lv', '-n', 'sdt:sched::sched_process_exec']).stdout;
    expect(v).toContain('\tArgument Types\n\t\targs[0]: string\n\t\targs[1]: pid_t\n\t\targs[2]: pid_t\n');
    const open = dtrace(['-lv', '-n', 'syscall::openat:entry']).stdout;
    expect(open).toContain('\t\targs[0]: int\n\t\targs[1]: const char *\n\t\targs[2]: int\n\t\targs[3]: umode_t\n');
  });
});

// Moved from test/unit/providers.test.ts: it mounts tracefs (root, the kernel's tracefs).
describe.skipIf(skip)(`tracefs${skip ? ` (skipped: ${skip})` : ''}`, () => {
  test('mounts a tracefs of its own where asked (the path used on a fresh machine)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tracefs-'));
    try {
      mountTracefs(dir);
      expect(listEvents('syscalls', dir)).toContain('sys_enter_read');
    } finally {
      try {
        execFileSync('umount', [dir]);
      } finally {
        rmdirSync(dir);
      }
    }
  });
});
