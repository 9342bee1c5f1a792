// The sched provider, from the scheduler's tracepoints:
//   sched:::off-cpu  sched:sched_switch (raw), in the thread leaving the CPU; args[0]
//                    lwpsinfo_t *, args[1] psinfo_t * of the thread that runs next.
//   sched:::sleep    the same, when the leaving thread goes to sleep: not preempted, and its
//                    state not TASK_RUNNING (a sleep a pending signal cancels stays running).
//   sched:::wakeup   sched:sched_waking (raw), in the waking thread, once the woken one's state
//                    is known to match (try_to_wake_up); args[0] lwpsinfo_t *, args[1] psinfo_t *
//                    of the woken thread.
//   sched:::on-cpu   sched_exit_tp (raw; a BPF-only tracepoint, found in BTF) with is_switch
//                    true: the end of __schedule() (or schedule_tail() for a new thread's first
//                    run) in the thread that has just come onto the CPU, as DTrace fires it. All
//                    of that thread's state is then the current one's: pid, execname, curthread,
//                    self->, stack(), ustack(), uregs[], copyin(), raise(). No arguments, as in
//                    DTrace. A kernel without sched_exit_tp gets it from sched_switch (raw), whose
//                    context task is `next` (src/device/linux/context-task.ts): the thread-derived
//                    built-ins are the arriving thread's, what is read from the running thread
//                    (stacks, user memory, destructive actions) the leaving one's.
//   sched:::preempt  sched_switch (raw), in the leaving thread when it stays runnable: preempted
//                    in the kernel, or its state TASK_RUNNING (a thread the tick found out of
//                    time switches on its way back to user mode through schedule(), with preempt
//                    false); not the idle thread. No arguments, as in DTrace. It fires only when
//                    the thread does leave: a preemption that picks the same thread again shows
//                    as remain-cpu alone.
//   sched:::change-pri  sched:sched_pi_setprio (raw), in rt_mutex_setprio(): priority inheritance
//                    (a PI futex or rt_mutex waiter lending its priority, and its return).
//                    args[0] lwpsinfo_t *, args[1] psinfo_t * of the thread whose priority changes
//                    (pr_pri still the old one), args[2] pri_t the new one, in pr_pri's scale.
//                    nice(2), setpriority(2) and sched_setattr(2) changes have no tracepoint.
//   sched:::remain-cpu  sched_exit_tp (raw), at the end of __schedule() when it kept the running
//                    thread (is_switch false).
// dtrace(1)'s NOTES say which sched probes are not offered: enqueue and dequeue (no tracepoint
// sees every run-queue insertion and removal; sched_wakeup covers only wake-ups, after the fact),
// tick (DTrace for Linux uses fbt on scheduler_tick; no tracepoint there, and a profile timer is
// not the scheduler's tick), surrender (a CPU told by another to reschedule), cpucaps-* and
// schedctl-* (Solaris features Linux lacks).

import { readFileSync } from 'node:fs';
import { loadKernelBtf } from '../btf/btf.js';
import { systemPaths } from '../sys/paths.js';
import type { ArgSource, Attach, Probe, Provider } from './provider.js';
import { STABLE_PROVIDER_ATTRIBUTES } from './proc.js';
import { rawDerivedProbes, RawTracepointProbe, type RawDerivedProbe } from './tracepoint-probe.js';
import { eventExists, tracefsRoot } from './tracefs.js';

const TASK = 'struct task_struct *';
const SWITCH = ['bool', TASK, TASK, 'unsigned int'];
/** The thread a raw parameter points to, as args[0] lwpsinfo_t * and args[1] psinfo_t *. */
const thread = (param: number) => [
  { type: 'lwpsinfo_t *', native: TASK, param },
  { type: 'psinfo_t *', native: TASK, param },
];

const PROBES: RawDerivedProbe[] = [
  { name: 'off-cpu', group: 'sched', event: 'sched_switch', params: SWITCH, args: thread(2) },
  // sched_switch(preempt, prev, next, prev_state): not preempt, and prev_state not TASK_RUNNING.
  { name: 'sleep', group: 'sched', event: 'sched_switch', params: SWITCH, args: [],
    guard: [{ offset: 0, size: 8, op: 'eq' }, { offset: 24, size: 8 }] },
  { name: 'wakeup', group: 'sched', event: 'sched_waking', params: [TASK], args: thread(0) },
];

/** Listed after on-cpu, so that the probes above keep their ids. */
const LATER: RawDerivedProbe[] = [
  // The leaving thread stays runnable (the opposite of sleep): preempted in the kernel, or its
  // state TASK_RUNNING (a thread the timer tick found out of time switches at its return to user
  // mode through schedule(), with preempt false). Not the idle thread (pid 0), whose switching out
  // is no preemption.
  { name: 'preempt', group: 'sched', event: 'sched_switch', params: SWITCH, args: [],
    guard: () => [
      { any: [{ offset: 0, size: 8 }, { offset: 24, size: 8, op: 'eq' }] },
      { offset: 8, deref: loadKernelBtf().memberPath('task_struct', 'pid').byteOffset, size: 4 },
    ] },
  // sched_pi_setprio(tsk, pi_task), in rt_mutex_setprio: args[2] the priority the task is given,
  // in pr_pri's scale (task_struct.prio), worked out as the tracepoint's own newprio field is.
  { name: 'change-pri', group: 'sched', event: 'sched_pi_setprio', params: [TASK, TASK],
    args: [...thread(0), { type: 'pri_t', param: 0, source: piPrio }] },
];

/**
 * Probes on tracepoints the kernel declares for BPF only (DECLARE_TRACE, the `_tp` names): they
 * have no tracefs event, so the kernel's BTF says whether they exist.
 */
const BARE: RawDerivedProbe[] = [
  // sched_exit_tp(is_switch), on leaving __schedule(): is_switch false when the scheduler picked
  // the thread that was running, which goes on running.
  { name: 'remain-cpu', group: 'sched', event: 'sched_exit_tp', params: ['bool'], args: [],
    guard: [{ offset: 0, size: 8, op: 'eq' }] },
];

/**
 * sched:::on-cpu where the kernel has sched_exit_tp: is_switch true, in the thread that has just
 * come onto the CPU (context_switch() returned into its own __schedule(), or a new thread's
 * schedule_tail()), so the probe's thread is simply the current one.
 */
const ON_CPU: RawDerivedProbe = { name: 'on-cpu', group: 'sched', event: 'sched_exit_tp', params: ['bool'], args: [],
  guard: [{ offset: 0, size: 8 }] };

/** change-pri's args[2]: the new priority from sched_pi_setprio's (tsk, pi_task). */
function piPrio(): ArgSource {
  const btf = loadKernelBtf();
  const at = (member: string) => btf.memberPath('task_struct', member).byteOffset;
  return { kind: 'piPrio', task: 0, piTask: 1, normalPrio: at('normal_prio'), prio: at('prio') };
}

/**
 * Which of `events` the kernel has as BPF-only tracepoints: their btf_trace_ typedefs' names are
 * in its BTF. The BTF (megabytes) is read once for all of them.
 */
function bareTracepoints(events: string[]): Set<string> {
  let btf: Buffer;
  try {
    btf = readFileSync(`${systemPaths.btfDir}/vmlinux`);
  } catch {
    return new Set();
  }
  return new Set(events.filter((event) => btf.includes(`\0btf_trace_${event}\0`)));
}

/**
 * sched:::on-cpu on a kernel without sched_exit_tp: a raw tracepoint program on sched_switch whose
 * context task is the raw argument holding `next`, found from the tracepoint's prototype in the
 * kernel's BTF on first use.
 */
class OnCpuProbe implements Probe {
  id = 0;
  readonly provider = 'sched';
  readonly module = 'vmlinux';
  readonly func = '';
  readonly name = 'on-cpu';
  readonly args = [];
  private cached: Attach | null = null;
  get attach(): Attach {
    return (this.cached ??= { kind: 'rawTracepoint', event: 'sched_switch', taskArg: nextTaskArg() });
  }
}

/**
 * The index, among a raw sched_switch program's u64 arguments, of `next`: the second
 * `struct task_struct *` parameter of btf_trace_sched_switch (void *__data, bool preempt,
 * struct task_struct *prev, struct task_struct *next, ...), less the __data the program does
 * not see.
 */
function nextTaskArg(): number {
  const btf = loadKernelBtf();
  const ptr = btf.resolvedType(btf.get('btf_trace_sched_switch', 'typedef').id);
  const proto = ptr.kind === 'ptr' ? btf.resolvedType(ptr.target) : ptr;
  if (proto.kind !== 'func_proto') throw new Error('btf_trace_sched_switch is not a function pointer');
  const tasks = proto.params.flatMap((p, i) => (btf.typeName(p.type) === 'struct task_struct *' ? [i] : []));
  if (tasks.length < 2) throw new Error('sched_switch has no prev and next task arguments');
  return tasks[1] - 1;
}

export class SchedProvider implements Provider {
  readonly name = 'sched';
  readonly attributes = STABLE_PROVIDER_ATTRIBUTES;
  hasProbeNamed = (name: string): boolean => [...PROBES, ON_CPU, ...LATER, ...BARE].some((p) => p.name === name);
  constructor(private readonly root?: string) {}
  list(): Probe[] {
    const root = this.root ?? tracefsRoot();
    const has = bareTracepoints([ON_CPU.event, ...BARE.map((d) => d.event)]);
    const onCpu = has.has(ON_CPU.event) ? [new RawTracepointProbe('sched', ON_CPU)]
      : eventExists('sched', 'sched_switch', root) ? [new OnCpuProbe()] : [];
    const bare = BARE.filter((d) => has.has(d.event)).map((d) => new RawTracepointProbe('sched', d));
    return [...rawDerivedProbes('sched', PROBES, root), ...onCpu, ...rawDerivedProbes('sched', LATER, root), ...bare];
  }
}
