// Kernel providers beside other tracers (issue 17): another tool's dynamic probe events are not
// sdt probes, and a probe whose tracepoint goes away between matching and attaching is named.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { DTRACE, ROOT, dtrace, kernelUnavailable } from '../helpers/run.js';

const skip = kernelUnavailable();
const UPROBE_EVENTS = '/sys/kernel/tracing/uprobe_events';

/** The file offset of an ELF64 executable's entry point (its first PT_LOAD holding it). */
function entryOffset(file: string): number {
  const b = readFileSync(file);
  const entry = b.readBigUInt64LE(24), phoff = Number(b.readBigUInt64LE(32));
  const phentsize = b.readUInt16LE(54), phnum = b.readUInt16LE(56);
  for (let i = 0; i < phnum; i++) {
    const p = phoff + i * phentsize;
    if (b.readUInt32LE(p) !== 1) continue;
    const offset = b.readBigUInt64LE(p + 8), vaddr = b.readBigUInt64LE(p + 16), filesz = b.readBigUInt64LE(p + 32);
    if (entry >= vaddr && entry < vaddr + filesz) return Number(entry - vaddr + offset);
  }
  throw new Error(`${file}: no PT_LOAD holds the entry point`);
}

const noUprobes = existsSync(UPROBE_EVENTS) ? null : `the kernel has no ${UPROBE_EVENTS}`;
const why = skip ?? noUprobes;

describe.skipIf(why)(`other tracers' probe events${why ? ` (skipped: ${why})` : ''}`, () => {
  // As DTrace for Linux makes dt_PID_dtrace/BEGIN and END while it runs.
  const group = `dt_${process.pid}_dtrace`;
  beforeAll(() => {
    const at = `/bin/true:0x${entryOffset('/bin/true').toString(16)}`;
    appendFileSync(UPROBE_EVENTS, `p:${group}/BEGIN ${at}\n`);
    appendFileSync(UPROBE_EVENTS, `p:${group}/END ${at}\n`);
  });
  afterAll(() => {
    for (const e of ['BEGIN', 'END']) {
      try { appendFileSync(UPROBE_EVENTS, `-:${group}/${e}\n`); } catch { /* already gone */ }
    }
  });

  test('the events are there, yet BEGIN and END are dtrace:::BEGIN and END only', () => {
    expect(readFileSync(UPROBE_EVENTS, 'utf8')).toContain(`${group}/BEGIN`);
    const r = dtrace(['-n', 'BEGIN { exit(0); } END { }']);
    // As DTrace says it: one description line for the -n program, two probes.
    expect(r.stderr).toBe('dtrace: description \'BEGIN \' matched 2 probes\n');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^CPU\s+ID\s+FUNCTION:NAME\n\s*\d+\s+1\s+:BEGIN \n\s*\d+\s+2\s+:END \n\n$/);
  });

  test('-l does not list them', () => {
    const all = dtrace(['-l']);
    expect(all.status).toBe(0);
    expect(all.stdout.split('\n').length).toBeGreaterThan(1000);
    expect(all.stdout).not.toContain(group);
    const r = dtrace(['-l', '-n', `${group}:::`]);
    expect(r.stderr).toBe(`dtrace: failed to match ${group}:::: No probe matches description\n`);
  });
});

describe.skipIf(skip)(`a probe that goes away before it is attached${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const run = (prog: string) => spawnSync(process.execPath, [DTRACE, '-n', prog], {
    encoding: 'utf8', cwd: ROOT, timeout: 30_000,
    env: { ...process.env, DTRACE_TEST_VANISH: 'sched/sched_process_fork' },
  });

  test('is named and skipped when others remain', () => {
    const r = run('sdt:sched::sched_process_fork, sdt:sched::sched_process_exec { } BEGIN { exit(0); }');
    expect(r.stderr).toContain('dtrace: sdt:sched::sched_process_fork: skipped: its tracepoint was removed after the probe was matched\n');
    expect(r.stderr).not.toContain('sched_process_exec: skipped');
    expect(r.status).toBe(0);
  });

  test('fails the run by name when it was the only match', () => {
    const r = run('sdt:sched::sched_process_fork { }');
    expect(r.stderr).toContain('dtrace: failed to enable sdt:sched::sched_process_fork: its tracepoint was removed after the probe was matched');
    expect(r.stderr).not.toMatch(/ioctl|ENOENT/);
    expect(r.status).toBe(1);
  });
});
