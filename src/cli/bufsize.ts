// The principal buffer's size and aggsize against the enabled program, as dtrace checks them
// once enabled (locally, and for a fleet, whose agents' buffers are the size the client asked for).

import { RECORD_HEADER_SIZE } from '../abi/records.js';
import type { AggregationDescription, EnabledProbe } from '../device/device.js';
import { aggsizeTooSmall } from '../device/linux/layout.js';

/** DTrace for Linux's least principal buffer: a smaller -b refuses the enabling. */
const MIN_BUFSIZE = 64;

const EXCEEDS = 'could not enable tracing: Enabling exceeds size of buffer';

/** A speculative buffer below one 8-byte word holds nothing (illumos lowers sizes by halves to 8 at least). */
const MIN_SPECSIZE = 8;

/**
 * A buffer smaller than the largest record (or than 64 bytes) is refused, and so is an aggsize
 * that cannot hold an aggregation's data, or a specsize below 8 bytes when the program
 * speculates (`specsize` given only then): DTrace's words, or null.
 */
export function bufsizeRefusal(
  bufsize: number, probes: EnabledProbe[], aggsize: number, aggregations: AggregationDescription[], specsize?: number,
): string | null {
  const largest = Math.max(MIN_BUFSIZE, ...probes.map((p) => RECORD_HEADER_SIZE + p.size));
  const tooSmall = bufsize < largest || aggsizeTooSmall(aggsize, aggregations) || (specsize !== undefined && specsize < MIN_SPECSIZE);
  return tooSmall ? EXCEEDS : null;
}
