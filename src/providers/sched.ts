// The sched provider, from the scheduler's tracepoints:
//   sched:::off-cpu  sched:sched_switch, in the thread leaving the CPU; arg0 is the pid (thread
//                    id) of the thread that runs next (DTrace: args[0] lwpsinfo_t *, args[1]
//                    psinfo_t * of that thread; plain integer and untyped until translators).
// sched:::on-cpu must fire in the thread arriving on the CPU. Nothing this kernel lets us attach
// to runs there: sched_switch runs in the leaving thread, the perf context-switch event fires on
// the way out too, and DTrace for Linux's fbt::schedule_tail (only a new task's first run anyway)
// needs kprobes. Firing it from sched_switch would give it the leaving thread's pid, tid,
// execname and curthread, so it is not offered; dtrace(1) says so under NOTES.

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
