// The fleet's message framing (src/fleet/protocol.ts): JSON headers, Buffers as bytes after them.
import { describe, expect, test } from 'vitest';
import { decode, encode, type DataMessage } from '../../src/fleet/protocol.js';

describe('fleet message frames', () => {
  test('records, aggregation entries, bigints and plain values come back as they went', () => {
    const rec = (epid: number, fill: number) => {
      const b = Buffer.alloc(24, fill);
      b.writeUInt32LE(epid, 0);
      return b;
    };
    const m: DataMessage & { big: bigint } = {
      instance: 'b',
      buffers: [{ cpu: 0, lost: 3, records: [rec(1, 0xaa), rec(2, 0xbb), Buffer.alloc(0)] }, { cpu: 1, lost: 0, records: [] }],
      aggregations: [{ id: 1, key: Buffer.from('key'), perCpu: [Buffer.alloc(8, 1), Buffer.alloc(8, 2)] }],
      aggregationDrops: [{ cpu: 1, drops: 7 }],
      final: true,
      big: -(2n ** 63n),
    };
    const back = decode<typeof m>(encode(m));
    expect(back).toEqual(m);
    expect(Buffer.isBuffer(back.buffers![0].records[1])).toBe(true);
    expect(back.buffers![0].records[1].readUInt32LE(0)).toBe(2);
  });

  test('records travel as bytes: a frame is barely larger than the records it carries', () => {
    const records = Array.from({ length: 1000 }, (_, i) => Buffer.alloc(32, i & 0xff));
    const frame = encode({ instance: 'a', buffers: [{ cpu: 0, lost: 0, records }] });
    // 32,000 bytes of records; base64 alone would be 42,668.
    expect(frame.length).toBeLessThan(32_000 + 6_000);
  });

  test('a frame of another version, a truncated one, or one pointing past its end is refused', () => {
    expect(() => decode(Buffer.from('{"instance":"a"}'))).toThrow('not a dtrace fleet message (another version of dtrace?)');
    const good = Buffer.from(encode({ dof: Buffer.alloc(100, 7) }));
    expect(() => decode(good.subarray(0, 8))).toThrow('a truncated dtrace fleet message');
    expect(() => decode(good.subarray(0, good.length - 1))).toThrow('a dtrace fleet message refers past its end');
  });
});
