// The provider interface: what every provider module tells the rest of dtrace about its probes.
//
// A Probe says which kernel attachment it needs (Attach) and where each of its arguments lives when
// it fires (ArgSource), so the kernel bridge can build the program prologue and attach it without
// knowing anything provider-specific.

import type { ProviderAttributes } from '../abi/stability.js';

/** The kernel object a probe is attached to. */
export type Attach =
  /** dtrace:::BEGIN/END/ERROR: fired by dtrace itself, not by a kernel event. */
  | { kind: 'dtrace'; which: 'BEGIN' | 'END' | 'ERROR' }
  /** A static tracepoint: tracefs events/GROUP/EVENT (BPF_PROG_TYPE_TRACEPOINT). */
  | { kind: 'tracepoint'; group: string; event: string }
  /**
   * A tracepoint's raw arguments (BPF_PROG_TYPE_RAW_TRACEPOINT: the context is the u64 arguments
   * of the kernel's trace_EVENT call). taskArg: the argument holding the task_struct of the thread
   * the probe describes instead of the current one (its pid, execname, self-> variables, ...).
   */
  | { kind: 'rawTracepoint'; event: string; taskArg?: number }
  /**
   * A timer: a PERF_COUNT_SW_CPU_CLOCK perf event with this sample period
   * (BPF_PROG_TYPE_PERF_EVENT). profile-N fires on every CPU (perCpu), tick-N on one CPU only.
   */
  | { kind: 'profile'; periodNs: bigint; perCpu: boolean; counter?: Counter }
  /**
   * A uprobe (or uretprobe when retprobe) at a file offset of an executable or library, through
   * the uprobe PMU (BPF_PROG_TYPE_KPROBE, context pt_regs). pid: fire only in that process.
   * refCtrOffset: file offset of a USDT semaphore the kernel increments while the probe is in place.
   * alsoRaise: another semaphore of the same file the program needs raised for this probe to fire.
   */
  | { kind: 'uprobe'; path: string; offset: number; retprobe: boolean; pid?: number; refCtrOffset?: number; alsoRaise?: SemaphoreHold };

/**
 * A cpc probe's perf counter (instead of the profile timer): perf_event_attr type and config,
 * overflowing every `periodNs` events (a count, despite the name; nanoseconds for the clocks),
 * counted in both modes or only in one.
 */
export interface Counter {
  type: number;
  config: number;
  mode: 'all' | 'user' | 'kernel';
}

/**
 * A semaphore raised by a uprobe that runs a program doing nothing, placed at the first of `sites`
 * (file offsets of instructions) the kernel accepts: the first ones should be code that runs
 * rarely, so that holding the semaphore costs no trap per firing of the probe it guards.
 */
export interface SemaphoreHold {
  refCtrOffset: number;
  sites: number[];
}

/** Where the value of one probe argument (argN) comes from when the probe fires. */
export type ArgSource =
  /** A field of the tracepoint record the program receives as its context. */
  | { kind: 'field'; offset: number; size: number; signed: boolean }
  /** The interrupted program counter (perf event context regs): the kernel PC if the CPU was in
   * the kernel, else 0 ('kernel'); the user PC if it was in user mode, else 0 ('user'). */
  | { kind: 'pc'; mode: 'kernel' | 'user' }
  /** The address of a field of the tracepoint record (fixed arrays such as `char comm[16]`). */
  | { kind: 'fieldAddress'; offset: number }
  /**
   * The address of a `__data_loc` (or `__rel_loc`) field's data: the u32 at `offset` holds the
   * data's offset in its low 16 bits, from the record start (or, for rel_loc, from the end of the
   * u32 itself).
   */
  | { kind: 'dataLoc'; offset: number; relative: boolean }
  /**
   * How the current task exited, as proc:::exit's args[0] (1 exited, 2 killed, 3 dumped core),
   * from task_struct.exit_code at `exitCodeOffset`.
   */
  | { kind: 'exitReason'; exitCodeOffset: number }
  /**
   * A user-space probe's register (pt_regs of the interrupted user code; x86_64 64-bit name such as
   * 'rdi', 'rax', 'rsp', 'rip'), its low `size` bytes, sign-extended when signed.
   */
  | { kind: 'register'; reg: string; size: 1 | 2 | 4 | 8; signed: boolean }
  /** `size` bytes of user memory at register + disp (SDT arguments such as 8@-16(%rbp)). */
  | { kind: 'memory'; reg: string; disp: number; size: 1 | 2 | 4 | 8; signed: boolean }
  /**
   * The user-space string a record field (a u64 at `offset`) points to, copied into kernel memory
   * of its own (strsize bytes at most, empty if unreadable) that lasts the whole firing; the value
   * is the copy's address (proc:::exec's path).
   */
  | { kind: 'userString'; offset: number }
  /** Minus the s64 record field at `offset`: a system call's error return as an errno. */
  | { kind: 'negated'; offset: number }
  /** A raw tracepoint's argument `index` (a u64 of the context; __data not counted). */
  | { kind: 'raw'; index: number }
  /**
   * The u64 at `offset` in the struct pt_regs the current thread entered the kernel with (the
   * top of its kernel stack): a system call's arguments and number, read at raw_syscalls.
   */
  | { kind: 'entryRegister'; offset: number }
  /** The u64 at `offset` in the kernel object a raw tracepoint argument points to (0 if unreadable). */
  | { kind: 'rawDeref'; index: number; offset: number }
  /**
   * The priority rt_mutex_setprio() gives the task raw argument `task` points to: the int at
   * `normalPrio` in it, or the int at `prio` in the task raw argument `piTask` points to when that
   * is smaller (and not NULL).
   */
  | { kind: 'piPrio'; task: number; piTask: number; normalPrio: number; prio: number }
  /**
   * The `size`-byte value at `offset` in the kernel object an earlier argument (argN, N = `arg`)
   * points to; 0 when that argument is 0 or the memory is unreadable (a socket's state).
   */
  | { kind: 'argDeref'; arg: number; offset: number; size: 1 | 2 | 4 | 8 }
  /**
   * A packet header inside a socket buffer (raw argument `index`, a struct sk_buff *): the buffer's
   * `head` pointer (the u64 at offset `head`) plus the u16 header offset at `header`
   * (network_header); 0 when the buffer has no head.
   */
  | { kind: 'skbHeader'; index: number; head: number; header: number }
  /**
   * The transport header after the IP header argN (N = `ip`) points to, when that packet carries
   * `protocol` (IPv4's protocol, or IPv6's next header with no extension headers); else 0.
   */
  | { kind: 'ipPayload'; ip: number; protocol: number }
  /** The IP header argN (N = `ip`) when its version is `version`, else 0 (ipv4info_t, ipv6info_t). */
  | { kind: 'ipOfVersion'; ip: number; version: 4 | 6 }
  /**
   * The current thread's lock wait, begun at lock:contention_begin (which the device then follows):
   * the nanoseconds since it began, its LCB_F_* flags, or 1 when it is a reader's (else 0); 0
   * without one.
   */
  | { kind: 'lockWait'; what: 'time' | 'flags' | 'reader' }
  /**
   * The TCP socket a received packet is for (raw argument `index`, a struct sk_buff * whose data
   * is the IP header), from the sockets the device follows (device/linux/tcpsocks.ts); 0 when
   * none is known.
   */
  | { kind: 'tcpSocket'; index: number }
  /** The value of an earlier argument (argN, N = `arg`), computed once. */
  | { kind: 'argCopy'; arg: number }
  /** A constant (SDT arguments such as 4@$5). */
  | { kind: 'constant'; value: bigint }
  /** The provider does not supply this argument; it reads as 0. */
  | { kind: 'none' };

/**
 * Another way to reach a probe (syscall entry and return): one program on the shared raw
 * tracepoint `event` that picks a probe by a key equal to `key` (the system call number), read
 * from `keyFrom` (the context's argument, or a register the thread entered the kernel with). The
 * probe's args read the same context from there.
 */
export interface Dispatch {
  event: string;
  keyFrom: Extract<ArgSource, { kind: 'raw' | 'entryRegister' }>;
  key: number;
  /** Where the shared context holds each argument, for every probe routed through it. */
  args: ProbeArg[];
  /**
   * Firings to leave alone: those of a task whose u32 at `offset` in its task_struct has a bit of
   * `mask` set (32-bit system calls on x86_64 are numbered differently, and the per-call
   * tracepoints ignore them too).
   */
  skipTask?: { offset: number; mask: number };
}

export interface ProbeArg {
  index: number; // N of argN
  /** D type of args[N], e.g. 'int', 'char *', 'size_t'; null when args[N] is untyped (only argN). */
  type: string | null;
  /**
   * The native type of argN when args[N] is its translation (DTrace's dtargd_native and
   * dtargd_xlate): argN is a `struct task_struct *` and args[N] the `psinfo_t *` a D library
   * translator makes of it.
   */
  native?: string;
  from: ArgSource;
}

export interface Probe {
  /** DTrace probe id (dtrace_id_t), assigned by the registry; 0 until then. */
  id: number;
  provider: string;
  module: string;
  func: string;
  name: string;
  attach: Attach;
  /** arg0, arg1, ... in order. May be computed on first use (tracepoint formats are read lazily). */
  readonly args: ProbeArg[];
  /**
   * args[] when it is not argN one for one: a USDT probe whose declaration maps its arguments
   * (`probe p(int a, int b) : (int b)`; DTrace's xargs and argument mapping). args[N] is then
   * arg{xargs[N].arg}, typed xargs[N].type; absent, args[N] is argN.
   */
  readonly xargs?: { type: string; native?: string; arg: number }[];
  /** Fire only when this field of the record is non-zero (proc:::exit: the group's last thread),
   * or when every one of these conditions holds. */
  readonly guard?: Guard | Guard[];
  /** Where this probe's system call return value is, for `errno` (syscall return probes). */
  readonly errno?: { offset: number };
  /** The shared-tracepoint route to this probe, when it has one; computed on first use. */
  dispatch?(): Dispatch | null;
  /**
   * Further places where this same probe fires, each with its own argument locations (a USDT probe
   * whose macro the compiler placed several times in one function).
   */
  sites?: { attach: Attach; args: ProbeArg[] }[];
  /**
   * A USDT probe enabled in every process of a binary: `provider` is the bare provider name, and
   * probeprov adds the firing process's pid (python1234), as DTrace names each process's
   * provider. `processes` lists those running now (dtrace -l shows each).
   */
  perProcess?: { processes(): number[] };
}

/**
 * A condition for a probe to fire: `size` bytes at `offset` in the probe's context (or, with
 * `arg`, the value of argN as loaded; with `in`, in the current task_struct or the pt_regs the
 * thread entered the kernel with), masked by `mask` when given, compared with `value` (default
 * 0) by `op` (default 'ne'; 'gt' compares unsigned).
 */
export interface Guard {
  offset?: number;
  in?: 'task' | 'entryRegisters';
  size?: 1 | 2 | 4 | 8;
  arg?: number;
  /** The value is read at this offset in the kernel object the u64 at `offset` (or argN) points to. */
  deref?: number;
  mask?: number;
  value?: number;
  op?: 'ne' | 'eq' | 'gt';
  /** Holds when any of these conditions (on the context) holds; the fields above are unused. */
  any?: Guard[];
}

/** A probe description's fields; an empty field matches anything. */
export interface ProbeSpec {
  /** RFD 2 instance (machine); this machine is 'host'. Absent means 'host'. */
  instance?: string;
  provider: string;
  module: string;
  function: string;
  name: string;
}

export interface Provider {
  name: string;
  attributes: ProviderAttributes;
  /** Every probe the provider offers without being asked, in a fixed order. */
  list(): Probe[];
  /**
   * Probes that a description names but list() does not hold (e.g. profile:::tick-1234).
   * Returns [] when the description asks for nothing new.
   */
  provide?(spec: ProbeSpec): Probe[];
  /**
   * Why a description that matches nothing here is wrong rather than empty, with DTrace's tag
   * (the pid provider's D_PROC_NAME, D_PROC_OFF, ...); undefined when it is merely unmatched.
   */
  refusal?(spec: ProbeSpec): { tag: string; message: string } | undefined;
  /**
   * For providers whose probes carry a per-process provider name (pid1234, python1234): does this
   * provider name (from a description, or a probe's own) belong to this provider? Without it, the
   * registry compares names with the provider's `name`. `module`: the description's module field,
   * for a provider that a module alone can name (USDT: a binary's path).
   */
  ownsProviderName?(providerName: string, module?: string): boolean;
  /**
   * False when the provider certainly has no probe of this name, known without listing: a
   * description naming only a probe (BEGIN, tick-1s) then lists no provider after the last that
   * may have it. Absent: the provider may have a probe of any name.
   */
  hasProbeNamed?(name: string): boolean;
  /**
   * Why a probe of this name, which DTrace's provider has, is not offered on this kernel
   * (lockstat's acquire and release probes); undefined for any other name.
   */
  missing?(name: string): string | undefined;
}
