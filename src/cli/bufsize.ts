// The principal buffer's size and aggsize against the enabled program, as dtrace checks them
// once enabled (locally, and for a fleet, whose agents' buffers are the size the client asked for).

import { RECORD_HEADER_SIZE } from '../abi/records.js';
import type { AggregationDescription, EnabledProbe } from '../device/device.js';
import { aggsizeTooSmall } from '../device/linux/layout.js';

/** DTrace for Linux's least principal buffer: a smaller -b refuses the enabling. */
const MIN_BUFSIZE = 64;

const EXCEEDS = 'could not enable tracing: Enabling exceeds size of buffer';

/**
 * A buffer smaller than the largest record (or than 64 bytes) is refused, and so is an aggsize
 * that cannot hold an aggregation's data: DTrace's words, or null.
 */
export function bufsizeRefusal(bufsize: number, probes: EnabledProbe[], aggsize: number, aggregations: AggregationDescription[]): string | null {
  const largest = Math.max(MIN_BUFSIZE, ...probes.map((p) => RECORD_HEADER_SIZE + p.size));
  return bufsize < largest || aggsizeTooSmall(aggsize, aggregations) ? EXCEEDS : null;
}
