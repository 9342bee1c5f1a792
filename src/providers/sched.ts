// The sched provider, from the scheduler's tracepoints:
//   sched:::off-cpu  sched:sched_switch (raw), in the thread leaving the CPU; args[0]
//                    lwpsinfo_t *, args[1] psinfo_t * of the thread that runs next.
//   sched:::sleep    the same, when the leaving thread goes to sleep: not preempted, and its
//                    state not TASK_RUNNING (a sleep a pending signal cancels stays running).
//   sched:::wakeup   sched:sched_waking (raw), in the waking thread, once the woken one's state
//                    is known to match (try_to_wake_up); args[0] lwpsinfo_t *, args[1] psinfo_t *
//                    of the woken thread.
//   sched:::on-cpu   the same tracepoint, attached raw: its arguments are (preempt, prev, next,
//                    ...), and the probe's context task is `next`, the thread arriving on the CPU
//                    (src/device/linux/context-task.ts). pid, tid, execname, curthread,
//                    curpsinfo/curlwpsinfo, ppid, uid, gid, progenyof() and self-> variables are
//                    the arriving thread's, as in DTrace; no arguments, as in DTrace.
// DTrace for Linux fires on-cpu from fbt in finish_task_switch/schedule_tail, inside the arriving
// thread; this kernel has no kprobes and refuses fentry, so on-cpu fires a little earlier, while
// the leaving thread still runs. What is read from the running thread rather than from its task
// is therefore the leaving thread's: stack() and ustack() (bpf_get_stack), user memory (copyin,
// copyinstr, user loads), and the destructive actions raise(), stop() and copyout. dtrace(1)'s
// NOTES say so, and which sched probes this kernel has no tracepoint for (enqueue, dequeue, ...).

import { loadKernelBtf } from '../btf/btf.js';
import type { Attach, Probe, Provider } from './provider.js';
import { STABLE_PROVIDER_ATTRIBUTES } from './proc.js';
import { rawDerivedProbes, type RawDerivedProbe } from './tracepoint-probe.js';
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

/**
 * sched:::on-cpu: a raw tracepoint program on sched_switch whose context task is the raw argument
 * holding `next`, found from the tracepoint's prototype in the kernel's BTF on first use.
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
  constructor(private readonly root?: string) {}
  list(): Probe[] {
    const root = this.root ?? tracefsRoot();
    const onCpu = eventExists('sched', 'sched_switch', root) ? [new OnCpuProbe()] : [];
    return [...rawDerivedProbes('sched', PROBES, root), ...onCpu];
  }
}
