// The lockstat provider's contention probes, from the kernel's lock tracepoints (attached raw):
// lock:contention_begin says a thread starts to wait and how (its LCB_F_* flags), and
// lock:contention_end (lock, ret) that the wait is over; the device keeps each thread's start
// (device/linux/lockwait.ts) so that a probe on contention_end has the time waited.
//   adaptive-spin   a mutex's optimistic spin (MUTEX|SPIN)        args: struct mutex *, uint64_t
//   adaptive-block  a mutex's sleep (MUTEX)                       args: struct mutex *, uint64_t
//   spin-spin       a spinlock's slow path (SPIN)                 args: spinlock_t *, uint64_t
//   rw-spin         an rwlock's slow path (SPIN|READ, SPIN|WRITE) args: struct rwlock *, uint64_t, int
//   rw-block        an rw_semaphore's sleep (READ, WRITE)         args: struct rw_semaphore *, uint64_t, int
// The int is RW_READER (1) or RW_WRITER (0). The acquire and release probes have no tracepoint
// here (the kernel's lock_acquire and lock_release need lockdep), so they are not listed.

import type { Guard } from './provider.js';
import { STABLE_PROVIDER_ATTRIBUTES } from './proc.js';
import { RawDerivedProvider, type RawDerivedProbe } from './tracepoint-probe.js';

const SPIN = 1 << 0, READ = 1 << 1, WRITE = 1 << 2, RT = 1 << 3, PERCPU = 1 << 4, MUTEX = 1 << 5;
const KINDS = SPIN | READ | WRITE | RT | PERCPU | MUTEX;

/** A probe on contention_end for waits whose flags are one of `flags` (with PERCPU ignored). */
function waitProbe(name: string, lock: string, flags: number[], rw: boolean): RawDerivedProbe {
  const args: RawDerivedProbe['args'] = [
    { type: lock, param: 0 },
    { type: 'uint64_t', param: 0, source: () => ({ kind: 'lockWait', what: 'time' }) },
  ];
  if (rw) args.push({ type: 'int', param: 0, source: () => ({ kind: 'lockWait', what: 'reader' }) });
  const flagsArg = args.length;
  args.push({ type: null, param: 0, source: () => ({ kind: 'lockWait', what: 'flags' }) });
  const match: Guard = {
    arg: flagsArg,
    any: flags.map((value) => ({ arg: flagsArg, mask: KINDS & ~PERCPU, value, op: 'eq' as const })),
  };
  return { name, group: 'lock', event: 'contention_end', params: ['void *', 'int'], args, guard: [match] };
}

const PROBES: RawDerivedProbe[] = [
  waitProbe('adaptive-spin', 'struct mutex *', [MUTEX | SPIN], false),
  waitProbe('adaptive-block', 'struct mutex *', [MUTEX], false),
  waitProbe('spin-spin', 'spinlock_t *', [SPIN], false),
  waitProbe('rw-spin', 'struct rwlock *', [SPIN | READ, SPIN | WRITE], true),
  waitProbe('rw-block', 'struct rw_semaphore *', [READ, WRITE], true),
];

/** DTrace's lockstat probes that have no tracepoint here. */
const UNTRACEABLE = ['adaptive-acquire', 'adaptive-acquire-error', 'adaptive-release', 'rw-acquire', 'rw-release', 'spin-acquire', 'spin-release'];

export class LockstatProvider extends RawDerivedProvider {
  missing = (name: string): string | undefined => UNTRACEABLE.includes(name)
    ? `${name} needs the kernel's lock_acquire and lock_release tracepoints (lockdep), which this kernel has not; its contention probes are ${PROBES.map((p) => p.name).join(', ')}`
    : undefined;
  constructor(root?: string) {
    super('lockstat', STABLE_PROVIDER_ATTRIBUTES, PROBES, root);
  }
}
