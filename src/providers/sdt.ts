// The sdt provider: every kernel tracepoint as sdt:GROUP::NAME, as DTrace for Linux names them
// (the tracepoint group is the module, the function is empty). args[] are the record's fields
// after the common header, in order, typed as the format file declares them; `__data_loc char[]`
// strings are passed by the address of their text and typed `string`, fixed arrays by address.
// Groups other providers own or that are not kernel tracepoints are left out, as DTrace does:
// syscalls (the syscall provider), kprobes and uprobes (dynamic probes), and every dynamic event
// another tracer made in a group of its own (DTrace for Linux's dt_PID_dtrace/BEGIN uprobes, say):
// they are not tracepoints a BPF tracepoint program can attach to, and `BEGIN` must not match them.

import { type Probe, type Provider } from './provider.js';
import { attr, type ProviderAttributes } from '../abi/stability.js';
import { recordArgs, TracepointProbe } from './tracepoint-probe.js';
import { availableEvents, dynamicEvents, tracefsRoot } from './tracefs.js';

/** The stability of a kernel tracepoint's probes, whether sdt or rawtp offers them. */
export const TRACEPOINT_ATTRIBUTES: ProviderAttributes = {
  provider: attr('Evolving', 'Evolving', 'ISA'),
  module: attr('Private', 'Private', 'Unknown'),
  function: attr('Private', 'Private', 'Unknown'),
  name: attr('Private', 'Private', 'ISA'),
  args: attr('Private', 'Private', 'ISA'),
};

const SKIPPED_GROUPS = new Set(['syscalls', 'kprobes', 'uprobes']);

export class SdtProvider implements Provider {
  readonly name = 'sdt';
  readonly attributes = TRACEPOINT_ATTRIBUTES;
  // The kernel's tracepoints are named as C identifiers in lower case.
  hasProbeNamed = (name: string): boolean => /^[a-z0-9_]+$/.test(name);

  /** `root`: the tracefs mount point; found (or mounted) on first use when not given. */
  constructor(private readonly root?: string) {}

  list(): Probe[] {
    const root = this.root ?? tracefsRoot();
    return kernelTracepoints(root).map(([group, event]) => new TracepointProbe(
      'sdt', group, '', event, { kind: 'tracepoint', group, event }, recordArgs, root,
    ));
  }
}

/** The kernel's own tracepoints as [group, event], sorted: what sdt and rawtp offer. */
export function kernelTracepoints(root: string): [string, string][] {
  const dynamic = dynamicEvents(root);
  return availableEvents(root)
    .filter(([group, event]) => !SKIPPED_GROUPS.has(group) && !dynamic.has(`${group}/${event}`))
    .sort(([g1, e1], [g2, e2]) => (g1 === g2 ? compare(e1, e2) : compare(g1, g2)));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
