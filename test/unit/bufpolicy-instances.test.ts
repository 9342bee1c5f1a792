// bufpolicy over a fleet (consumer/bufpolicy.ts): each instance's CPU is a buffer of its own.
import { describe, expect, test } from 'vitest';
import { BufferPolicy } from '../../src/consumer/bufpolicy.js';

const rec = (n: number) => Buffer.alloc(16, n);

describe('bufpolicy with a fleet\'s buffers', () => {
  test('ring keeps each instance\'s CPU 0 apart, and says whose records they are', () => {
    const p = new BufferPolicy('ring', 32);
    p.admit([{ cpu: 0, lost: 0, records: [rec(1), rec(2), rec(3)], instance: 'b' }, { cpu: 0, lost: 0, records: [rec(4)], instance: 'a' }]);
    expect(p.flush()).toEqual([
      { cpu: 0, lost: 0, records: [rec(4)], instance: 'a' },
      { cpu: 0, lost: 0, records: [rec(2), rec(3)], instance: 'b' },
    ]);
  });

  test('ring without instances is per CPU, lowest first, as before', () => {
    const p = new BufferPolicy('ring', 16);
    p.admit([{ cpu: 1, lost: 0, records: [rec(1), rec(2)] }, { cpu: 0, lost: 2, records: [rec(3)] }]);
    expect(p.flush()).toEqual([{ cpu: 0, lost: 0, records: [rec(3)] }, { cpu: 1, lost: 0, records: [rec(2)] }]);
  });

  test('fill counts each instance\'s CPU on its own; drops keep their instance', () => {
    const p = new BufferPolicy('fill', 32);
    const a = p.admit([{ cpu: 0, lost: 0, records: [rec(1), rec(2)], instance: 'a' }, { cpu: 0, lost: 0, records: [rec(3)], instance: 'b' }]);
    expect(a.map((b) => [b.instance, b.records.length, b.lost])).toEqual([['a', 2, 0], ['b', 1, 0]]);
    expect(p.filled).toBe(false);
    const b = p.admit([{ cpu: 0, lost: 1, records: [rec(4)], instance: 'a' }]);
    expect(b).toEqual([{ cpu: 0, lost: 2, records: [], instance: 'a' }]);
    expect(p.filled).toBe(true);
  });
});
