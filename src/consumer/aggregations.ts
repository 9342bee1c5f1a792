// Aggregation snapshots: decode each entry's key, merge its per-CPU data, and print every
// aggregation as dtrace does at exit.

import * as D from '../dif/constants.js';
import type { AggregationDescription, AggregationEntry } from '../device/device.js';
import { type AggAction, type AggData, type AggEntry, type AggPrintOptions, formatAllAggregations } from './aggprint.js';
import { decode } from './consumer.js';

const ACTIONS: Record<number, AggAction> = {
  [D.DTRACEAGG_COUNT]: 'count', [D.DTRACEAGG_SUM]: 'sum', [D.DTRACEAGG_MIN]: 'min',
  [D.DTRACEAGG_MAX]: 'max', [D.DTRACEAGG_AVG]: 'avg',
};

/** Merge the per-CPU values of one entry, as the consumer does for DTrace's per-CPU buffers. */
export function mergePerCpu(action: number, perCpu: Buffer[]): AggData {
  const words = (b: Buffer, i: number) => b.readBigInt64LE(i * 8);
  switch (action) {
    case D.DTRACEAGG_MIN: return perCpu.reduce((m, b) => (words(b, 0) < m ? words(b, 0) : m), 0x7fffffffffffffffn);
    case D.DTRACEAGG_MAX: return perCpu.reduce((m, b) => (words(b, 0) > m ? words(b, 0) : m), -0x8000000000000000n);
    case D.DTRACEAGG_AVG: return perCpu.reduce((a, b) => ({ count: a.count + words(b, 0), total: a.total + words(b, 1) }), { count: 0n, total: 0n });
    default: return perCpu.reduce((s, b) => s + words(b, 0), 0n);
  }
}

/** Entries that never saw a value on any CPU (min/max start values) are not shown. */
function seen(action: number, perCpu: Buffer[]): boolean {
  if (action === D.DTRACEAGG_MIN) return perCpu.some((b) => b.readBigInt64LE(0) !== 0x7fffffffffffffffn);
  if (action === D.DTRACEAGG_MAX) return perCpu.some((b) => b.readBigInt64LE(0) !== -0x8000000000000000n);
  if (action === D.DTRACEAGG_COUNT || action === D.DTRACEAGG_AVG) return perCpu.some((b) => b.readBigInt64LE(0) !== 0n);
  return true;
}

export function formatAggregations(descs: AggregationDescription[], entries: AggregationEntry[], opts: AggPrintOptions = {}): string {
  const vars = descs.map((desc) => {
    const mine: AggEntry[] = entries
      .filter((e) => e.id === desc.id && seen(desc.action, e.perCpu))
      .map((e) => ({ keys: desc.keys.map((k) => decode(k, e.key)), data: mergePerCpu(desc.action, e.perCpu) }));
    return { varId: desc.id, desc: { action: ACTIONS[desc.action] ?? 'count' }, entries: mine };
  });
  return formatAllAggregations(vars.filter((v) => v.entries.length > 0), opts);
}
