// The proc provider, built from the scheduler's process tracepoints:
//   proc:::exec-success  sched:sched_process_exec, in the new program (execname is its name)
//   proc:::exit          sched:sched_process_exit when the process's last thread exits;
//                        args[0] (int) is how: 1 exited, 2 killed by a signal, 3 dumped core
//   proc:::create        sched:sched_process_fork, in the parent; arg0 is the child's pid
// DTrace types create's args[0] as psinfo_t * (a translator over the child's task); until the
// front end has translators it is the plain integer, untyped.

import { loadKernelBtf } from '../btf/btf.js';
import { attr, type Probe, type ProbeArg, type Provider, type ProviderAttributes } from './provider.js';
import { derivedProbes, namedFieldArgs, type DerivedProbe } from './tracepoint-probe.js';
import { tracefsRoot } from './tracefs.js';

export const STABLE_PROVIDER_ATTRIBUTES: ProviderAttributes = {
  provider: attr('Evolving', 'Evolving', 'ISA'),
  module: attr('Private', 'Private', 'Unknown'),
  function: attr('Private', 'Private', 'Unknown'),
  name: attr('Evolving', 'Evolving', 'ISA'),
  args: attr('Evolving', 'Evolving', 'ISA'),
};

function exitArgs(): ProbeArg[] {
  const exitCodeOffset = loadKernelBtf().memberPath('task_struct', 'exit_code').byteOffset;
  return [{ index: 0, type: 'int', from: { kind: 'exitReason', exitCodeOffset } }];
}

const PROBES: DerivedProbe[] = [
  { name: 'create', group: 'sched', event: 'sched_process_fork', args: namedFieldArgs(['child_pid']) },
  { name: 'exec-success', group: 'sched', event: 'sched_process_exec', args: () => [] },
  { name: 'exit', group: 'sched', event: 'sched_process_exit', args: exitArgs, guardField: 'group_dead' },
];

export class ProcProvider implements Provider {
  readonly name = 'proc';
  readonly attributes = STABLE_PROVIDER_ATTRIBUTES;
  constructor(private readonly root?: string) {}
  list(): Probe[] {
    return derivedProbes('proc', PROBES, this.root ?? tracefsRoot());
  }
}
