// The device interface: what the consumer asks of the kernel side, whichever kernel it is.
//
// On Linux the device translates DOF's DIF into eBPF; on hosts with /dev/dtrace it would hand the
// DOF to the kernel by ioctl. The consumer sees only this interface: it enables a DOF, starts and
// stops tracing, drains per-CPU buffers of records laid out as described by the enabled probe
// descriptions, and snapshots aggregations.

/** A probe as the device knows it (dtrace_probedesc_t with its id). */
export interface ProbeInfo {
  id: number;
  provider: string;
  module: string;
  func: string;
  name: string;
  /** RFD 2: the instance (agent) the probe is on, when a fleet consumer enabled it. */
  instance?: string;
}

/** One record of an enabled probe's data (dtrace_recdesc_t). */
export interface RecordDescription {
  action: number; // DTRACEACT_* / DTRACEAGG_* kind of the action that produced it
  size: number; // bytes
  offset: number; // from the start of the enabled probe's data (after the record header)
  alignment: number;
  format?: string; // printf-like actions: the format string
  arg: bigint; // the action's arg
  uarg: bigint; // the action's uarg
  /** How the bytes are to be read: signed/unsigned integer or NUL-terminated string. */
  type: 'int' | 'uint' | 'string' | 'bytes';
  /** A struct or union value: trace() shows it as a hex-and-ASCII dump whatever its bytes. */
  dump?: boolean;
  /** An integer aggregation key stored wider than the type its first clause gave it: printed by that size. */
  shown?: 1 | 2 | 4 | 8;
}

/** An enabled probe (dtrace_eprobedesc_t): one ECB description attached to one probe. */
export interface EnabledProbe {
  epid: number;
  probe: ProbeInfo;
  ecb: number; // index of the ECB description in the enabled program
  size: number; // bytes of data after the record header
  records: RecordDescription[];
}

/** An aggregation (dtrace_aggdesc_t): keys and the aggregating function's data. */
export interface AggregationDescription {
  id: number; // aggregation variable id (the action's uarg)
  name: string; // without '@'; "" for the anonymous aggregation @
  action: number; // DTRACEAGG_*
  arg: bigint; // e.g. lquantize parameters
  keys: RecordDescription[]; // offsets within the key bytes
  keySize: number;
  valueSize: number; // bytes of one CPU's aggregation data
}

/** Records drained from one CPU's buffer, oldest first. Each record starts with its header. */
export interface CpuBuffer {
  cpu: number;
  records: Buffer[]; // each: u32 epid, u32 reserved, u64 timestamp, then the enabled probe's data
  lost: number; // records the kernel dropped on this CPU since the last drain
  /** A fleet's buffer: the instance whose CPU it is (its drops are reported naming it). */
  instance?: string;
}

/** One aggregation entry: its key bytes and each CPU's data, merged by the consumer. */
export interface AggregationEntry {
  id: number;
  key: Buffer;
  perCpu: Buffer[];
}

/** Matches of one ECB description, for "description '...' matched N probes". */
export interface EnableResult {
  probes: EnabledProbe[];
  aggregations: AggregationDescription[];
  matched: number[]; // per ECB description: how many probes it matched
}

/** One fleet instance's drops since the last call (Device.instanceDrops). */
export interface InstanceDrops {
  instance: string;
  dynamic: number;
  recursion: number;
  /** speculation() failures: busy, or no speculative buffer available. */
  busy: number;
  unavailable: number;
}

export interface DeviceStatus {
  errors: number;
  exited: boolean;
}

export interface Device {
  /** Decode the DOF, build and load everything; nothing fires until go(). */
  enable(dof: Buffer): EnableResult;
  /** Fire BEGIN, call `afterBegin` (the consumer reads BEGIN's records then), then attach every other probe. */
  go(afterBegin?: () => void): void;
  /** Detach every probe, then fire END. */
  stop(): void;
  /** Wait for buffered data for at most `ms` milliseconds without blocking the event loop. */
  wait(ms: number): Promise<void>;
  /** Take what each CPU's buffer holds. */
  drain(): CpuBuffer[];
  /** Read every aggregation's entries. */
  aggregationSnapshot(): AggregationEntry[];
  /** Remove every kernel object the device created. Safe to call more than once. */
  close(): void;
  /** Dynamic-variable stores dropped since the last call (dynvarsize exhausted). */
  dynamicVariableDrops(): number;
  /** Probe firings the kernel skipped since the last call: another BPF program ran on that CPU. */
  recursionMisses(): number;
  /** Aggregation inserts dropped per CPU so far (aggsize exhausted); a fleet's name their instance. */
  aggregationDrops(): { cpu: number; drops: number; instance?: string }[];
  /**
   * A fleet's device: each instance's dynamic-variable drops, recursion misses and failed
   * speculations since the last call, reported naming it (its dynamicVariableDrops(),
   * recursionMisses() and speculationFailures() are then 0).
   */
  instanceDrops?(): InstanceDrops[];
  /** clear(): zero the entries of an aggregation as the consumer read them (what came since stays). */
  clearAggregation(id: number, read: AggregationEntry[]): void;
  /** trunc(): remove these entries, as read, of an aggregation (what came since stays). */
  removeAggregationKeys(id: number, read: AggregationEntry[]): void;
  /**
   * Speculations: the consumer has printed or forgotten the records of speculation `id` (the
   * generation its records were tagged with), which DTrace's cleaner would now make INACTIVE.
   */
  cleanSpeculation?(id: number, generation: number): void;
  /** speculation() calls that failed since the last call: busy, or no speculation available. */
  speculationFailures?(): { busy: number; unavailable: number };
}
