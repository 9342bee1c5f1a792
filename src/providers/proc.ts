// The proc provider, built from the kernel's process, task and signal tracepoints:
//   proc:::create          task:task_newtask (raw) for a new process (no CLONE_THREAD), in the
//                          parent; args[0] psinfo_t * of the child
//   proc:::lwp-create      the same for a new thread (CLONE_THREAD); args[0] lwpsinfo_t *,
//                          args[1] psinfo_t * of the new thread
//   proc:::exec-success    sched:sched_process_exec, in the new program (execname is its name)
//   proc:::exit            sched:sched_process_exit when the process's last thread exits;
//                          args[0] (int) is how: 1 exited, 2 killed by a signal, 3 dumped core
//   proc:::lwp-exit        sched:sched_process_exit, for every thread that exits (the last too)
//   proc:::signal-send     signal:signal_generate (raw), in the sender, unless the target ignores
//                          the signal; args[0] lwpsinfo_t *, args[1] psinfo_t * of the target
//                          thread, args[2] int the signal
//   proc:::signal-discard  the same when the target ignores it (TRACE_SIGNAL_IGNORED)
//   proc:::signal-handle   signal:signal_deliver (raw), in the thread about to run the handler it
//                          set (not for signals left to their default action or ignored); args[0]
//                          int the signal, args[1] its struct kernel_siginfo *, args[2] the handler
//   proc:::exec            syscalls:sys_enter_execve and sys_enter_execveat, before the new image
//                          loads; args[0] (string) the path asked for, copied from the caller
//   proc:::exec-failure    syscalls:sys_exit_execve and sys_exit_execveat when the call returns
//                          an error; args[0] (int) the errno
// start, lwp-start and signal-clear have no tracepoint here (dtrace(1) NOTES).

import { loadKernelBtf } from '../btf/btf.js';
import { type Attach, type Probe, type ProbeArg, type Provider } from './provider.js';
import { attr, type ProviderAttributes } from '../abi/stability.js';
import { derivedProbes, rawDerivedProbes, type DerivedProbe, type RawDerivedProbe } from './tracepoint-probe.js';
import { eventExists, eventFormat, tracefsRoot } from './tracefs.js';

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
  { name: 'exec-success', group: 'sched', event: 'sched_process_exec', args: () => [] },
  { name: 'exit', group: 'sched', event: 'sched_process_exit', args: exitArgs, guardField: 'group_dead' },
  { name: 'lwp-exit', group: 'sched', event: 'sched_process_exit', args: () => [] },
];

const TASK = 'struct task_struct *';
const CLONE_THREAD = 0x10000;
/** enum trace_signal_result: the target ignores the signal. */
const TRACE_SIGNAL_IGNORED = 1;
const NEWTASK = ['struct task_struct *', 'u64'];
const GENERATE = ['int', 'struct kernel_siginfo *', TASK, 'int', 'int'];
/** The thread a raw parameter points to, as args[0] lwpsinfo_t * and args[1] psinfo_t *. */
const thread = (param: number) => [
  { type: 'lwpsinfo_t *', native: TASK, param },
  { type: 'psinfo_t *', native: TASK, param },
];
/** Raw parameter N (a u64 of the context) compared as a guard. */
const rawParam = (n: number) => ({ offset: 8 * n, size: 8 as const });

export const RAW_PROBES: RawDerivedProbe[] = [
  { name: 'create', group: 'task', event: 'task_newtask', params: NEWTASK, args: [{ type: 'psinfo_t *', native: TASK, param: 0 }],
    guard: [{ ...rawParam(1), mask: CLONE_THREAD, op: 'eq' }] },
  { name: 'lwp-create', group: 'task', event: 'task_newtask', params: NEWTASK, args: thread(0),
    guard: [{ ...rawParam(1), mask: CLONE_THREAD }] },
  { name: 'signal-send', group: 'signal', event: 'signal_generate', params: GENERATE, args: [...thread(2), { type: 'int', param: 0 }],
    guard: [{ ...rawParam(4), value: TRACE_SIGNAL_IGNORED }] },
  { name: 'signal-discard', group: 'signal', event: 'signal_generate', params: GENERATE, args: [...thread(2), { type: 'int', param: 0 }],
    guard: [{ ...rawParam(4), value: TRACE_SIGNAL_IGNORED, op: 'eq' }] },
  { name: 'signal-handle', group: 'signal', event: 'signal_deliver', params: ['int', 'struct kernel_siginfo *', 'struct k_sigaction *'],
    args: [{ type: 'int', param: 0 }, { type: 'struct kernel_siginfo *', param: 1 }, { type: 'uintptr_t', param: 2, deref: handlerOffset }],
    // SIG_DFL (0) and SIG_IGN (1) are no handler: the kernel acts on those signals itself.
    guard: [{ arg: 2, value: 1, op: 'gt' }] },
];

function handlerOffset(): number {
  return loadKernelBtf().memberPath('k_sigaction', 'sa.sa_handler').byteOffset;
}

/** The system calls that exec a new image; each is a place where exec and exec-failure fire. */
const EXEC_CALLS = ['execve', 'execveat'];

/**
 * proc:::exec and exec-failure: one probe each, firing at every exec system call's entry (or
 * return) tracepoint, with the argument read from where that call's record holds it.
 */
function execProbes(root: string): Probe[] {
  /** Where the 8-byte `field` is in syscalls:`event`'s record; undefined if it is not there. */
  const offset = (event: string, field: string) => {
    if (!eventExists('syscalls', event, root)) return undefined;
    const f = eventFormat('syscalls', event, root).fields.find((x) => x.name === field && !x.common);
    return f?.size === 8 ? f.offset : undefined;
  };
  const calls = EXEC_CALLS.map((c) => ({ c, path: offset(`sys_enter_${c}`, 'filename'), ret: offset(`sys_exit_${c}`, 'ret') }))
    .filter((x): x is { c: string; path: number; ret: number } => x.path !== undefined && x.ret !== undefined);
  const probe = (name: string, sites: { attach: Attach; args: ProbeArg[] }[], guard?: Probe['guard']): Probe => ({
    id: 0, provider: 'proc', module: 'vmlinux', func: '', name, attach: sites[0].attach, args: sites[0].args,
    ...(guard ? { guard } : {}), ...(sites.length > 1 ? { sites: sites.slice(1) } : {}),
  });
  const at = (event: string): Attach => ({ kind: 'tracepoint', group: 'syscalls', event });
  if (calls.length === 0) return [];
  return [
    probe('exec', calls.map(({ c, path }) => ({
      attach: at(`sys_enter_${c}`),
      args: [{ index: 0, type: 'string', from: { kind: 'userString', offset: path } }],
    }))),
    // An exec returns only on failure (-errno); a successful one returns 0 in the new image.
    probe('exec-failure', calls.map(({ c, ret }) => ({
      attach: at(`sys_exit_${c}`),
      args: [{ index: 0, type: 'int', from: { kind: 'negated', offset: ret } }],
    })), [{ arg: 0 }]),
  ];
}

export class ProcProvider implements Provider {
  readonly name = 'proc';
  readonly attributes = STABLE_PROVIDER_ATTRIBUTES;
  hasProbeNamed = (name: string): boolean =>
    name === 'exec' || name === 'exec-failure' || [...PROBES, ...RAW_PROBES].some((p) => p.name === name);
  constructor(private readonly root?: string) {}
  list(): Probe[] {
    const root = this.root ?? tracefsRoot();
    return [...derivedProbes('proc', PROBES, root), ...rawDerivedProbes('proc', RAW_PROBES, root), ...execProbes(root)];
  }
}
