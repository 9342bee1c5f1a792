// dtrace-flamegraph's folding and drawing (src/cli/flamegraph.ts), on a stack aggregation as
// dtrace(1) prints it.
import { describe, expect, test } from 'vitest';
import { flameGraph, foldStacks } from '../../src/cli/flamegraph.js';

const AGGREGATION = `

              prog\`leaf+0x1d
              prog\`main+0x67
              libc.so.6\`__libc_start_call_main+0x7a
                3

              prog\`other+0x12
              prog\`main+0x3b
              libc.so.6\`__libc_start_call_main+0x7a
                1

              prog\`leaf+0x30
              prog\`main+0x67
              libc.so.6\`__libc_start_call_main+0x7a
               12
`;

describe('dtrace-flamegraph', () => {
  test('stacks fold root first, offsets gone, the same function summed', () => {
    expect([...foldStacks(AGGREGATION)]).toEqual([
      ['libc.so.6`__libc_start_call_main;prog`main;prog`leaf', 15],
      ['libc.so.6`__libc_start_call_main;prog`main;prog`other', 1],
    ]);
  });

  test('the SVG: a box per frame, as wide as its share, named in its tooltip', () => {
    const svg = flameGraph(foldStacks(AGGREGATION), { width: 1020, title: 'a <test>' });
    expect(svg).toContain('<text x="510" y="24" text-anchor="middle" style="font-size: 17px">a &lt;test&gt;</text>');
    const box = (name: string) => {
      const m = new RegExp(`<title>${name.replace(/[`.]/g, (c) => `\\${c}`)} \\((\\d+) samples?, ([\\d.]+)%\\)</title><rect x="([\\d.]+)" y="(\\d+)" width="([\\d.]+)"`).exec(svg);
      if (!m) throw new Error(`no box for ${name}`);
      return { samples: Number(m[1]), share: m[2], x: Number(m[3]), y: Number(m[4]), width: Number(m[5]) };
    };
    expect(box('all')).toEqual({ samples: 16, share: '100.00', x: 10, y: box('all').y, width: 1000 });
    expect(box('prog`leaf')).toMatchObject({ samples: 15, share: '93.75', width: 937.5, x: 10 });
    expect(box('prog`other')).toMatchObject({ samples: 1, share: '6.25', width: 62.5, x: 947.5 });
    // Callees above callers: each level one frame (16 pixels) higher.
    expect(box('prog`main').y - box('prog`leaf').y).toBe(16);
    expect(box('all').y - box('libc.so.6`__libc_start_call_main').y).toBe(16);
    expect(svg.match(/<g class="frame" /g)?.length).toBe(5);
  });
});
