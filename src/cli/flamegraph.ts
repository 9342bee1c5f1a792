// dtrace-flamegraph: a stack aggregation as dtrace(1) prints it (this dtrace's or any DTrace's:
// the text stackcollapse.pl reads -- a stack's frames a line each, leaf first, then its count,
// stacks apart by blank lines) folded into "root;...;leaf count" lines, and drawn as a
// self-contained SVG flame graph: each frame a box as wide as its share of the samples, callers
// below callees, its name, samples and share in a tooltip (<title>); a click zooms into a frame.
//
//   dtrace -qn 'profile-997 /pid == $target/ { @[ustack()] = count(); }' -c ./prog | dtrace-flamegraph > prog.svg
//   dtrace-flamegraph [--folded] [--title TEXT] [--width PIXELS] [FILE]

import { Chalk, supportsColorStderr } from 'chalk';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { readFileSync } from 'node:fs';

/** Folded stacks: "root;caller;leaf" -> samples, in the order first seen. */
export function foldStacks(text: string): Map<string, number> {
  const folded = new Map<string, number>();
  let frames: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') {
      frames = [];
      continue;
    }
    if (/^\d+$/.test(line) && frames.length > 0) {
      // Offsets go (main+0x3b is main), as stackcollapse.pl does, so a function is one box.
      const key = frames.map((f) => f.replace(/\+0x[0-9a-f]+$/, '')).reverse().join(';');
      folded.set(key, (folded.get(key) ?? 0) + Number(line));
      frames = [];
      continue;
    }
    frames.push(line);
  }
  return folded;
}

interface Node {
  name: string;
  samples: number;
  children: Map<string, Node>;
}

function tree(folded: Map<string, number>): Node {
  const root: Node = { name: 'all', samples: 0, children: new Map() };
  for (const [stack, n] of folded) {
    root.samples += n;
    let node = root;
    for (const name of stack.split(';')) {
      let child = node.children.get(name);
      if (!child) node.children.set(name, (child = { name, samples: 0, children: new Map() }));
      child.samples += n;
      node = child;
    }
  }
  return root;
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A warm colour from the name, so that a function keeps its colour across graphs. */
function colour(name: string): string {
  let h = 0;
  for (const c of name) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return `rgb(${205 + (h % 50)},${80 + ((h >> 8) % 130)},${(h >> 16) % 55})`;
}

export interface FlameGraphOptions {
  title?: string;
  width?: number;
}

// Click a frame to zoom: it and its callees fill the width, its callers stay (full width), the rest
// hide; click the bottom frame ("all") to see everything again. Labels are cut to fit as drawn.
const ZOOM_SCRIPT = `
(function () {
  var pad = PAD, full = WIDTH - 2 * PAD;
  var frames = [].slice.call(document.querySelectorAll('g.frame')).map(function (g) {
    var r = g.querySelector('rect');
    return { g: g, r: r, t: g.querySelector('text'), name: g.getAttribute('data-name'),
      x: +r.getAttribute('x'), w: +r.getAttribute('width'), y: +r.getAttribute('y') };
  });
  function label(f, x, w) {
    if (!f.t) { f.t = document.createElementNS('http://www.w3.org/2000/svg', 'text'); f.t.setAttribute('y', f.y + 12); f.g.appendChild(f.t); }
    f.t.setAttribute('x', (x + 3).toFixed(2));
    f.t.textContent = w >= 24 ? f.name.slice(0, Math.floor(w / 7) - 1) : '';
  }
  function zoom(z) {
    frames.forEach(function (f) {
      var inside = f.y <= z.y && f.x >= z.x - 1e-6 && f.x + f.w <= z.x + z.w + 1e-6;
      var caller = f.y > z.y && f.x <= z.x + 1e-6 && f.x + f.w >= z.x + z.w - 1e-6;
      var x = inside ? pad + (f.x - z.x) * full / z.w : pad, w = inside ? f.w * full / z.w : full;
      f.g.style.display = inside || caller ? '' : 'none';
      f.g.style.opacity = caller && f !== z ? '0.5' : '';
      f.r.setAttribute('x', x.toFixed(2));
      f.r.setAttribute('width', w.toFixed(2));
      label(f, x, w);
    });
  }
  frames.forEach(function (f) { f.g.addEventListener('click', function () { zoom(f); }); });
})();
`;

/** The SVG flame graph of folded stacks. */
export function flameGraph(folded: Map<string, number>, opts: FlameGraphOptions = {}): string {
  const root = tree(folded);
  const width = opts.width ?? 1200;
  const frameHeight = 16;
  const pad = 10;
  const top = 40;
  let depth = 0;
  const walk = (n: Node, d: number) => { depth = Math.max(depth, d); for (const c of n.children.values()) walk(c, d + 1); };
  walk(root, 0);
  const height = top + (depth + 1) * frameHeight + pad * 2;
  const scale = root.samples > 0 ? (width - 2 * pad) / root.samples : 0;
  const boxes: string[] = [];
  const draw = (n: Node, x: number, d: number) => {
    const w = n.samples * scale;
    const y = height - pad - (d + 1) * frameHeight;
    const share = root.samples > 0 ? ((100 * n.samples) / root.samples).toFixed(2) : '0.00';
    const label = w >= 24 ? escape(n.name.slice(0, Math.floor(w / 7) - 1)) : '';
    boxes.push(
      `<g class="frame" data-name="${escape(n.name)}"><title>${escape(n.name)} (${n.samples} sample${n.samples === 1 ? '' : 's'}, ${share}%)</title>` +
      `<rect x="${x.toFixed(2)}" y="${y}" width="${w.toFixed(2)}" height="${frameHeight - 1}" fill="${d === 0 ? 'rgb(200,200,200)' : colour(n.name)}" rx="2"/>` +
      (label ? `<text x="${(x + 3).toFixed(2)}" y="${y + frameHeight - 4}">${label}</text>` : '') + '</g>',
    );
    let cx = x;
    for (const c of [...n.children.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      draw(c, cx, d + 1);
      cx += c.samples * scale;
    }
  };
  if (root.samples > 0) draw(root, pad, 0);
  const title = escape(opts.title ?? 'Flame Graph');
  return [
    '<?xml version="1.0" standalone="no"?>',
    `<svg version="1.1" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    '<style>text { font-family: monospace; font-size: 12px; fill: #000; pointer-events: none; } .frame { cursor: pointer; } .frame:hover rect { stroke: #000; stroke-width: 0.5; }</style>',
    `<rect x="0" y="0" width="${width}" height="${height}" fill="rgb(248,248,248)"/>`,
    `<text x="${width / 2}" y="24" text-anchor="middle" style="font-size: 17px">${title}</text>`,
    ...boxes,
    // After the frames, which it reads as it runs.
    `<script type="text/ecmascript"><![CDATA[${ZOOM_SCRIPT.replace(/PAD/g, String(pad)).replace('WIDTH', String(width))}]]></script>`,
    '</svg>',
    '',
  ].join('\n');
}

/**
 * Colour for diagnostics only at a terminal: FORCE_COLOR forces it (chalk's reading of it and of
 * the terminal), else NO_COLOR (no-color.org) turns it off.
 */
function stderrColourLevel(): 0 | 1 | 2 | 3 {
  if (process.env.FORCE_COLOR === undefined && (process.env.NO_COLOR ?? '') !== '') return 0;
  return supportsColorStderr ? supportsColorStderr.level : 0;
}

/** Our own command, not DTrace's: GNU-style options through commander, errors in red at a terminal. */
function parseArguments(argv: string[]): { folded: boolean; title?: string; width?: number; file?: string } | number {
  const red = new Chalk({ level: stderrColourLevel() }).red;
  const command = new Command('dtrace-flamegraph')
    .description('a dtrace stack aggregation (stack() or ustack() keys) as a flame graph in SVG, or as folded stacks')
    .argument('[file]', "dtrace's output (default: standard input)")
    .option('--folded', 'print folded stacks (one line per stack: frames;...;frames count)')
    .option('--title <text>', 'the title above the graph')
    .option('--width <pixels>', 'the width of the SVG', (v: string) => {
      if (!/^\d+$/.test(v) || Number(v) === 0) throw new InvalidArgumentError('a positive number of pixels is needed.');
      return Number(v);
    })
    .helpOption('-h, --help', 'show this help')
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(red(text)) });
  try {
    command.parse(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    throw e;
  }
  const o = command.opts<{ folded?: boolean; title?: string; width?: number }>();
  return { folded: o.folded ?? false, title: o.title, width: o.width, file: command.args[0] };
}

/** The command: the aggregation from FILE (or standard input) to an SVG (or, --folded, folded stacks) on stdout. */
export function flamegraphMain(argv: string[]): number {
  const args = parseArguments(argv);
  if (typeof args === 'number') return args;
  const { folded, title, width, file } = args;
  let text: string;
  try {
    // /dev/stdin opens the pipe anew, blocking: fd 0 itself may have been made non-blocking.
    text = readFileSync(file ?? '/dev/stdin', 'utf8');
  } catch (e) {
    process.stderr.write(`dtrace-flamegraph: cannot read ${file ?? 'standard input'}: ${(e as Error).message}\n`);
    return 1;
  }
  const stacks = foldStacks(text);
  if (stacks.size === 0) {
    process.stderr.write(`dtrace-flamegraph: no stacks in ${file ?? 'standard input'} (an aggregation keyed by stack() or ustack() is needed)\n`);
    return 1;
  }
  if (folded) process.stdout.write([...stacks].map(([k, n]) => `${k} ${n}\n`).join(''));
  else process.stdout.write(flameGraph(stacks, { title, width }));
  return 0;
}
