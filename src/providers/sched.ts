// The sched provider, from the scheduler's tracepoints:
//   sched:::off-cpu  sched:sched_switch, in the thread leaving the CPU; arg0 is the pid (thread
//                    id) of the thread that runs next (DTrace: args[0] lwpsinfo_t *, args[1]
//                    psinfo_t * of that thread; plain integer and untyped until translators).
// sched:::on-cpu must fire in the thread arriving on the CPU; no tracepoint with a trace event
// fires there (sched_switch still runs in the leaving thread), so it is not offered.

import type { Probe, Provider } from './provider.js';
import { STABLE_PROVIDER_ATTRIBUTES } from './proc.js';
import { derivedProbes, namedFieldArgs, type DerivedProbe } from './tracepoint-probe.js';
import { tracefsRoot } from './tracefs.js';

const PROBES: DerivedProbe[] = [
  { name: 'off-cpu', group: 'sched', event: 'sched_switch', args: namedFieldArgs(['next_pid']) },
];

export class SchedProvider implements Provider {
  readonly name = 'sched';
  readonly attributes = STABLE_PROVIDER_ATTRIBUTES;
  constructor(private readonly root?: string) {}
  list(): Probe[] {
    return derivedProbes('sched', PROBES, this.root ?? tracefsRoot());
  }
}
