// -x temporal: records from every CPU's buffer printed in the order they were traced.
//
// Each record's header carries its timestamp (bpf_ktime_get_ns, CLOCK_MONOTONIC -- the clock of
// process.hrtime). As DTrace's temporal mode does, a drain may print only the records traced
// before every buffer was read: one traced after the read began may still be on its way into a
// buffer already read, and an earlier record on another CPU could follow it. Those are held
// until the next drain. A probe takes its timestamp a little before it writes the record, so the
// horizon is moved back by that much (HOLD_NS) rather than trusting the instant of the read.

import type { CpuBuffer } from '../device/device.js';

/** Longer than a probe program runs between reading the clock and writing its record. */
const HOLD_NS = 1_000_000n;

export interface TimedRecord {
  cpu: number;
  raw: Buffer;
}

interface Held extends TimedRecord {
  ts: bigint;
}

export class TemporalOrder {
  private held: Held[] = [];

  /** The clock now: call it before draining the buffers whose records are added next. */
  static now(): bigint {
    return process.hrtime.bigint();
  }

  /**
   * Take the drained records and give back, oldest first, those traced before `readAt - HOLD_NS`
   * (all of them when `readAt` is null: tracing has stopped and nothing more will arrive).
   */
  merge(buffers: CpuBuffer[], readAt: bigint | null): TimedRecord[] {
    for (const b of buffers) for (const raw of b.records) this.held.push({ cpu: b.cpu, raw, ts: raw.readBigUInt64LE(8) });
    // A stable sort: records with one timestamp keep their buffer's order.
    this.held.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
    let n = this.held.length;
    if (readAt !== null) {
      const horizon = readAt - HOLD_NS;
      n = 0;
      while (n < this.held.length && this.held[n].ts <= horizon) n++;
    }
    return this.held.splice(0, n).map(({ cpu, raw }) => ({ cpu, raw }));
  }
}
