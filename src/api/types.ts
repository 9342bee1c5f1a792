// The library API's public types: what a Node.js program sees of a tracing session. They name
// nothing inside the stages, so the package's declarations (dist/api/*.d.ts) stand alone.

/** A value D recorded: integers as bigint (signed or not as their D type), strings, raw bytes
 * (structs, arrays), or a stack's frames ("module`function+0x1c"). */
export type DValue = bigint | string | Buffer | string[];

/** A probe: its id and four-part name. */
export interface ProbeDescription {
  id: number;
  provider: string;
  module: string;
  function: string;
  name: string;
}

/** What one action of a clause recorded when its probe fired. */
export type ActionRecord =
  | { action: 'trace'; value: DValue }
  | { action: 'printf'; format: string; args: DValue[]; /** as dtrace(1) prints it */ text: string }
  | { action: 'print'; text: string }
  | { action: 'printa'; format?: string; aggregations: Aggregation[] }
  | { action: 'tracemem'; bytes: Buffer }
  | { action: 'stack' | 'ustack' | 'jstack'; frames: string[] }
  | { action: 'sym' | 'mod' | 'usym' | 'umod' | 'uaddr'; text: string }
  | { action: 'setopt'; option: string; value: string }
  | { action: 'system'; command: string; output: string }
  | { action: 'exit'; status: number };

/** A probe firing: which probe, on which CPU, and what each action of the clause recorded. */
export interface ProbeRecord {
  type: 'probe';
  probe: ProbeDescription;
  cpu: number;
  /** Nanoseconds (CLOCK_MONOTONIC) when the probe fired. */
  timestamp: bigint;
  actions: ActionRecord[];
}

/** A fault in probe context (the ERROR probe): the clause went on no further. */
export interface FaultRecord {
  type: 'fault';
  probe: ProbeDescription | null;
  /** e.g. "invalid address (0x0) in action #1 at DIF offset 12", as dtrace(1) words it. */
  message: string;
}

/** Records the kernel dropped on a CPU (its buffer was full). */
export interface DropRecord {
  type: 'drop';
  cpu: number;
  count: number;
}

export type TraceRecord = ProbeRecord | FaultRecord | DropRecord;

/** One bucket of a quantize(), lquantize() or llquantize(): its lower bound ("< 0", ">= 100"
 * for the open ends of lquantize/llquantize) and its count. */
export interface Bucket {
  value: bigint | string;
  count: bigint;
}

export type AggregatingFunction = 'count' | 'sum' | 'min' | 'max' | 'avg' | 'stddev' | 'quantize' | 'lquantize' | 'llquantize';

/** One entry of an aggregation: its keys, and its value (count() .. stddev()) or buckets. */
export interface AggregationEntry {
  keys: DValue[];
  value?: bigint;
  buckets?: Bucket[];
}

/** An aggregation as it stands: entries in the order dtrace(1) prints them. */
export interface Aggregation {
  /** Without the '@' ("" for the anonymous @). */
  name: string;
  function: AggregatingFunction;
  entries: AggregationEntry[];
}

/** Options of dtrace(1)'s -x (and its flags: quiet, destructive, ...): `true` sets a flag. */
export type DTraceOptions = Record<string, string | number | boolean>;

export interface CompileOptions {
  /** Macro arguments: $1, $2, ... */
  args?: string[];
  /** Options for this program, as -x gives them (a pragma in the program overrides). */
  options?: DTraceOptions;
  /** 'script' (the default): a D program as `-s` reads it. 'probes': probe descriptions as `-n`. */
  kind?: 'script' | 'probes';
  /** How messages name the program ("failed to compile script NAME"): "program", or the descriptions. */
  name?: string;
  /** $target: the process the program is about. */
  target?: number;
}

export interface OpenOptions {
  /** Directories of D library files (-L). */
  libraryDirs?: string[];
}
