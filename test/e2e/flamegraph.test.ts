// dtrace to flame graph in one step: a profiled C program's user stacks, aggregated by dtrace,
// piped into dtrace-flamegraph; the SVG shows the program's functions in proportion to their work.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DTRACE, ROOT, gcc, kernelUnavailable } from '../helpers/run.js';

const skip = kernelUnavailable();
let work = '';
beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'dtrace-flamegraph-'));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

// spin_a does three times spin_b's work.
const PROGRAM = `#include <stdlib.h>
volatile unsigned long sink;
__attribute__((noinline)) void spin_a(long n) { for (long i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void spin_b(long n) { for (long i = 0; i < n; i++) sink ^= i; }
int main(int argc, char **argv) { long n = atol(argv[1]); for (int r = 0; r < 40; r++) { spin_a(n); spin_b(n / 3); } return 0; }
`;

describe('dtrace-flamegraph', () => {
  test("a profiled program's flame graph shows its functions in proportion", (ctx) => {
    if (skip) ctx.skip(skip);
    writeFileSync(path.join(work, 'busy.c'), PROGRAM);
    gcc(path.join(work, 'busy.c'), path.join(work, 'busy'), ['-fno-omit-frame-pointer']);
    const cmd = `"${DTRACE}" -qn 'profile-997 /pid == $target/ { @[ustack()] = count(); }' -c '${work}/busy 6000000'` +
      ` | "${process.execPath}" "${path.join(ROOT, 'bin/dtrace-flamegraph')}" --title busy`;
    const r = spawnSync('sh', ['-c', cmd], { encoding: 'utf8', timeout: 120_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const svg = r.stdout;
    expect(svg.startsWith('<?xml version="1.0" standalone="no"?>\n<svg ')).toBe(true);
    const box = (name: string) => {
      const m = new RegExp(`<title>${name.replace(/[`.]/g, (c) => `\\${c}`)} \\((\\d+) samples?, [\\d.]+%\\)</title><rect x="[\\d.]+" y="(\\d+)" width="([\\d.]+)"`).exec(svg);
      if (!m) throw new Error(`no box for ${name} in ${svg}`);
      return { samples: Number(m[1]), y: Number(m[2]), width: Number(m[3]) };
    };
    const a = box('busy`spin_a'), b = box('busy`spin_b'), main = box('busy`main');
    // About 3:1; the profile's samples vary, so with room.
    expect(a.samples).toBeGreaterThan(100);
    expect(a.samples / b.samples).toBeGreaterThan(1.8);
    expect(a.samples / b.samples).toBeLessThan(5);
    expect(a.width).toBeGreaterThan(b.width);
    // Both are called from main: one level above it, and main spans them both.
    expect(main.y - a.y).toBe(16);
    expect(main.y - b.y).toBe(16);
    expect(main.samples).toBeGreaterThanOrEqual(a.samples + b.samples);
    expect(svg).toContain('>busy</text>');
  });

  test('its options: --help, and a bad --width refused with status 2 (commander)', () => {
    const fg = (args: string[]) => spawnSync(process.execPath, [path.join(ROOT, 'bin/dtrace-flamegraph'), ...args], { encoding: 'utf8', input: '' });
    const help = fg(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: dtrace-flamegraph \[options\] \[file\]/);
    expect(help.stdout).toContain('--folded');
    const bad = fg(['--width', 'abc']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe("error: option '--width <pixels>' argument 'abc' is invalid. a positive number of pixels is needed.\n");
  });
});
