// dtrace to flame graph in one step: a profiled C program's user stacks, aggregated by dtrace,
// piped into dtrace-flamegraph; the SVG shows the program's functions in proportion to their work,
// and Debian's Chromium (installed by scripts/setup-system.sh), headless, draws them and zooms on a click.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
    writeFileSync(path.join(work, 'busy.svg'), svg);
  });

  test('headless Chromium shows the graph, and a click on a frame zooms into it', (ctx) => {
    if (skip) ctx.skip(skip);
    const svgFile = path.join(work, 'busy.svg');
    expect(existsSync(svgFile), 'the profile test above writes busy.svg').toBe(true);
    // The SVG as a user opens it (a file of its own), measured by the page that embeds it after a
    // click on spin_b's frame: what is displayed, how wide as laid out, and each frame's label.
    writeFileSync(path.join(work, 'page.html'), `<!DOCTYPE html><html><body>
<object id="graph" type="image/svg+xml" data="busy.svg"></object><pre id="shown"></pre>
<script>
function shown(doc) {
  const frames = {};
  for (const g of doc.querySelectorAll('g.frame')) {
    const t = g.querySelector('text');
    frames[g.getAttribute('data-name')] = { visible: getComputedStyle(g).display !== 'none',
      width: Math.round(g.querySelector('rect').getBoundingClientRect().width), label: t ? t.textContent : '' };
  }
  return frames;
}
document.getElementById('graph').addEventListener('load', function () {
  const doc = this.contentDocument, before = shown(doc);
  [...doc.querySelectorAll('g.frame')].find((g) => g.getAttribute('data-name') === 'busy\`spin_b').dispatchEvent(new MouseEvent('click'));
  document.getElementById('shown').textContent = JSON.stringify({ before, zoomed: shown(doc) });
});
</script></body></html>`);
    const r = spawnSync('chromium', ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${path.join(work, 'chromium')}`,
      '--allow-file-access-from-files', '--virtual-time-budget=5000', '--dump-dom', `file://${path.join(work, 'page.html')}`],
    { encoding: 'utf8', timeout: 90_000 });
    expect(r.error, 'chromium (Debian package, installed by scripts/setup-system.sh)').toBeUndefined();
    const json = /<pre id="shown">(.*)<\/pre>/.exec(r.stdout)?.[1];
    expect(json, r.stdout + r.stderr).toBeDefined();
    type Shown = Record<string, { visible: boolean; width: number; label: string }>;
    const { before, zoomed } = JSON.parse(json!.replace(/&quot;/g, '"').replace(/&amp;/g, '&')) as { before: Shown; zoomed: Shown };
    const a = before['busy`spin_a'], b = before['busy`spin_b'], main = before['busy`main'];
    // Drawn: both functions visible and labelled, spin_a about three times as wide, main spanning both.
    expect(a.visible && b.visible && main.visible).toBe(true);
    expect(a.label).toBe('busy`spin_a');
    expect(b.label).toBe('busy`spin_b');
    expect(a.width / b.width).toBeGreaterThan(1.8);
    expect(main.width).toBeGreaterThanOrEqual(a.width + b.width - 1);
    // Zoomed on spin_b: it fills the graph's width (1180 pixels inside the margins), spin_a is gone,
    // and its caller main stays, as wide as the graph.
    expect(zoomed['busy`spin_b']).toEqual({ visible: true, width: 1180, label: 'busy`spin_b' });
    expect(zoomed['busy`spin_a'].visible).toBe(false);
    expect(zoomed['busy`main']).toMatchObject({ visible: true, width: 1180 });
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

  test('diagnostics in colour only at a terminal (chalk): FORCE_COLOR forces it, NO_COLOR stops it', () => {
    const red = '\x1b[31merror: option';
    const fg = `"${process.execPath}" "${path.join(ROOT, 'bin/dtrace-flamegraph')}" --width abc`;
    const piped = (env: Record<string, string>) => spawnSync('sh', ['-c', fg], { encoding: 'utf8', env: { PATH: process.env.PATH!, ...env } }).stderr;
    // At a terminal: script(1) gives the command one.
    const atTerminal = (env: string) => spawnSync('script', ['-qec', `${env} ${fg}`, '/dev/null'], { encoding: 'utf8', env: { PATH: process.env.PATH!, TERM: 'xterm' } }).stdout;
    expect(piped({})).toMatch(/^error: option/);
    expect(piped({ FORCE_COLOR: '1' })).toMatch(/^\x1b\[31merror: option/);
    expect(atTerminal('')).toContain(red);
    expect(atTerminal('NO_COLOR=1')).toMatch(/^error: option/);
  });
});
