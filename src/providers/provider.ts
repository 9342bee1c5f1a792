// The provider interface: what every provider module tells the rest of dtrace about its probes.
//
// A Probe says which kernel attachment it needs (Attach) and where each of its arguments lives when
// it fires (ArgSource), so the kernel bridge can build the program prologue and attach it without
// knowing anything provider-specific.

/** The kernel object a probe is attached to. */
export type Attach =
  /** dtrace:::BEGIN/END/ERROR: fired by dtrace itself, not by a kernel event. */
  | { kind: 'dtrace'; which: 'BEGIN' | 'END' | 'ERROR' }
  /** A static tracepoint: tracefs events/GROUP/EVENT (BPF_PROG_TYPE_TRACEPOINT). */
  | { kind: 'tracepoint'; group: string; event: string }
  /**
   * A timer: a PERF_COUNT_SW_CPU_CLOCK perf event with this sample period
   * (BPF_PROG_TYPE_PERF_EVENT). profile-N fires on every CPU (perCpu), tick-N on one CPU only.
   */
  | { kind: 'profile'; periodNs: bigint; perCpu: boolean };

/** Where the value of one probe argument (argN) comes from when the probe fires. */
export type ArgSource =
  /** A field of the tracepoint record the program receives as its context. */
  | { kind: 'field'; offset: number; size: number; signed: boolean }
  /** The interrupted program counter (perf event context regs): the kernel PC if the CPU was in
   * the kernel, else 0 ('kernel'); the user PC if it was in user mode, else 0 ('user'). */
  | { kind: 'pc'; mode: 'kernel' | 'user' }
  /** The provider does not supply this argument; it reads as 0. */
  | { kind: 'none' };

export interface ProbeArg {
  index: number; // N of argN
  /** D type of args[N], e.g. 'int', 'char *', 'size_t'; null when args[N] is untyped (only argN). */
  type: string | null;
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

/** DTrace stability levels (dtrace_stability_t), lowest first. */
export const STABILITY = [
  'Internal',
  'Private',
  'Obsolete',
  'External',
  'Unstable',
  'Evolving',
  'Stable',
  'Standard',
] as const;
export type Stability = (typeof STABILITY)[number];

/** DTrace dependency classes (dtrace_class_t), lowest first. */
export const DEPENDENCY_CLASS = ['Unknown', 'CPU', 'Platform', 'Group', 'ISA', 'Common'] as const;
export type DependencyClass = (typeof DEPENDENCY_CLASS)[number];

/** One attribute triple (dtrace_attribute_t). */
export interface Attribute {
  name: Stability;
  data: Stability;
  dependency: DependencyClass;
}

/** A provider's attributes for each element of its probe descriptions (dtrace_pattr_t). */
export interface ProviderAttributes {
  provider: Attribute;
  module: Attribute;
  function: Attribute;
  name: Attribute;
  args: Attribute;
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
}

/** A shorthand for attribute tables. */
export function attr(name: Stability, data: Stability, dependency: DependencyClass): Attribute {
  return { name, data, dependency };
}
