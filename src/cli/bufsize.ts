// The principal buffer's size against the enabled program, as dtrace checks it once enabled
// (locally, and for a fleet, whose agents' buffers are the size the client asked for).

import { RECORD_HEADER_SIZE } from '../abi/records.js';
import type { EnabledProbe } from '../device/device.js';

/** DTrace for Linux's least principal buffer: a smaller -b refuses the enabling. */
const MIN_BUFSIZE = 64;

/** A buffer smaller than the largest record (or than 64 bytes) is refused: DTrace's words, or null. */
export function bufsizeRefusal(bufsize: number, probes: EnabledProbe[]): string | null {
  const largest = Math.max(MIN_BUFSIZE, ...probes.map((p) => RECORD_HEADER_SIZE + p.size));
  return bufsize < largest ? 'could not enable tracing: Enabling exceeds size of buffer' : null;
}
