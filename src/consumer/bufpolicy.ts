// The bufpolicy option on top of the device's per-CPU perf buffers, which always behave as
// DTrace's "switch" policy (drained at switchrate, a full buffer's records lost and counted):
//
// - fill: each CPU keeps at most bufsize bytes of records for the whole run; the first record
//   that does not fit is dropped, and tracing stops (END still runs: its records are exempt, as
//   DTrace keeps room for them); records that did not fit are reported as drops.
// - ring: each CPU keeps only its most recent bufsize bytes of records; nothing is printed until
//   tracing ends, then each CPU's records in order.

import type { CpuBuffer } from '../device/device.js';

export type BufferPolicyName = 'switch' | 'fill' | 'ring';

export class BufferPolicy {
  /** fill: a buffer has filled, and tracing should stop. */
  filled = false;
  // Per buffer: a CPU, or a fleet instance's CPU.
  private used = new Map<string, number>();
  private ring = new Map<string, { cpu: number; instance?: string; records: Buffer[]; bytes: number }>();

  constructor(
    readonly policy: BufferPolicyName,
    private bufsize: number,
    /** Records exempt from the fill limit (the END probe's). */
    private exempt: (record: Buffer) => boolean = () => false,
  ) {}

  /** The buffers to print now. Under ring, records are kept instead (see flush). */
  admit(buffers: CpuBuffer[]): CpuBuffer[] {
    if (this.policy === 'fill') return buffers.map((b) => this.fill(b));
    if (this.policy === 'ring') {
      for (const b of buffers) this.keep(b);
      return buffers.filter((b) => b.lost > 0).map((b) => ({ ...b, records: [] }));
    }
    return buffers;
  }

  /** ring: every CPU's retained records, lowest CPU first, and forget them. */
  flush(): CpuBuffer[] {
    const out = [...this.ring.values()]
      .sort((a, b) => (a.instance ?? '').localeCompare(b.instance ?? '') || a.cpu - b.cpu)
      .map((r) => ({ cpu: r.cpu, records: r.records, lost: 0, ...(r.instance !== undefined ? { instance: r.instance } : {}) }));
    this.ring.clear();
    return out;
  }

  private fill(b: CpuBuffer): CpuBuffer {
    let used = this.used.get(bufferKey(b)) ?? 0;
    let lost = b.lost;
    const records: Buffer[] = [];
    for (const r of b.records) {
      if (this.exempt(r)) records.push(r);
      else if (!this.filled && used + r.length <= this.bufsize) {
        used += r.length;
        records.push(r);
      } else {
        this.filled = true;
        lost++;
      }
    }
    this.used.set(bufferKey(b), used);
    return { ...b, records, lost };
  }

  private keep(b: CpuBuffer): void {
    let r = this.ring.get(bufferKey(b));
    if (!r) this.ring.set(bufferKey(b), (r = { cpu: b.cpu, instance: b.instance, records: [], bytes: 0 }));
    for (const rec of b.records) {
      r.records.push(rec);
      r.bytes += rec.length;
    }
    // Oldest records make room for the newest.
    let drop = 0;
    while (r.bytes > this.bufsize && drop < r.records.length) r.bytes -= r.records[drop++].length;
    if (drop > 0) r.records.splice(0, drop);
  }
}

const bufferKey = (b: CpuBuffer): string => `${b.instance ?? ''}:${b.cpu}`;
