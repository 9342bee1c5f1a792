// Probes backed by a kernel tracepoint, and the mapping from a tracepoint's record fields to probe
// arguments shared by the sdt, syscall, proc, sched and io providers.

import { loadKernelBtf } from '../btf/btf.js';
import type { ArgSource, Attach, Dispatch, Guard, Probe, ProbeArg, Provider } from './provider.js';
import type { ProviderAttributes } from '../abi/stability.js';
import { eventExists, eventFormat, tracefsRoot, type FormatField } from './tracefs.js';

export type TracepointAttach = Extract<Attach, { kind: 'tracepoint' }>;

/** What a tracepoint probe may add to its record fields: see Probe. */
export interface TracepointExtras {
  /** Fire only when this record field is non-zero (see Probe.guard); read from the format. */
  guardField?: string;
  errno?: Probe['errno'];
  dispatch?: () => Dispatch | null;
}

/** A probe backed by a tracepoint whose arguments are worked out from its format on first use. */
export class TracepointProbe implements Probe {
  id = 0;
  private cachedFields: FormatField[] | null = null;
  private cachedArgs: ProbeArg[] | null = null;
  private readonly guardField?: string;
  readonly errno?: Probe['errno'];
  readonly dispatch?: () => Dispatch | null;

  constructor(
    readonly provider: string,
    readonly module: string,
    readonly func: string,
    readonly name: string,
    readonly attach: TracepointAttach,
    private readonly argsFromFormat: (fields: FormatField[]) => ProbeArg[],
    private readonly root: string,
    extras: TracepointExtras = {},
  ) {
    if (extras.guardField) this.guardField = extras.guardField;
    if (extras.errno) this.errno = extras.errno;
    if (extras.dispatch) this.dispatch = extras.dispatch;
  }

  private get fields(): FormatField[] {
    return (this.cachedFields ??= eventFormat(this.attach.group, this.attach.event, this.root).fields);
  }

  get args(): ProbeArg[] {
    return (this.cachedArgs ??= this.argsFromFormat(this.fields));
  }

  get guard(): Probe['guard'] {
    if (!this.guardField) return undefined;
    const f = this.fields.find((x) => x.name === this.guardField && !x.common);
    if (!f || ![1, 2, 4, 8].includes(f.size)) {
      throw new Error(`tracepoint ${this.attach.group}:${this.attach.event} has no scalar field "${this.guardField}"`);
    }
    return { offset: f.offset, size: f.size as 1 | 2 | 4 | 8 };
  }
}

/**
 * One record field as a probe argument: scalars by value; fixed arrays and larger fields by
 * address (typed `T [N]`, as CTF names arrays); `__data_loc char[]` strings by the address of their text, typed
 * `string`; other `__data_loc` arrays by the address of their data (typed `T []`).
 */
export function fieldArg(index: number, f: FormatField): ProbeArg {
  if (f.dynamic) {
    const relative = f.dynamic === 'rel_loc';
    const type = f.type === 'char' ? 'string' : `${f.type} []`;
    return { index, type, from: { kind: 'dataLoc', offset: f.offset, relative } };
  }
  if (f.arrayLength !== undefined) {
    return { index, type: `${f.type} [${f.arrayLength}]`, from: { kind: 'fieldAddress', offset: f.offset } };
  }
  if (f.size === 1 || f.size === 2 || f.size === 4 || f.size === 8) {
    return { index, type: f.type, from: { kind: 'field', offset: f.offset, size: f.size, signed: f.signed } };
  }
  return { index, type: f.type, from: { kind: 'fieldAddress', offset: f.offset } };
}

/** Every field after the common_* header, in record order, as arg0, arg1, ... */
export function recordArgs(fields: FormatField[]): ProbeArg[] {
  return fields.filter((f) => !f.common).map((f, i) => fieldArg(i, f));
}

/** The named fields of a record as arg0, arg1, ... in the order given (untyped: DTrace's stable
 * providers type their arguments with translators, which are not here yet). */
export function namedFieldArgs(names: string[]): (fields: FormatField[]) => ProbeArg[] {
  return (fields) =>
    names.map((name, index) => {
      const f = fields.find((x) => x.name === name && !x.common);
      if (!f) throw new Error(`tracepoint has no field "${name}"`);
      return { ...fieldArg(index, f), type: null };
    });
}

/** One probe of a stable provider (proc, sched, io) and the tracepoint it is built from. */
export interface DerivedProbe {
  name: string;
  group: string;
  event: string;
  args: (fields: FormatField[]) => ProbeArg[];
  guardField?: string;
}

/** The probes of a stable provider whose tracepoints this kernel has, as provider:vmlinux::name. */
export function derivedProbes(provider: string, table: DerivedProbe[], root: string): Probe[] {
  return table
    .filter((d) => eventExists(d.group, d.event, root))
    .map((d) => new TracepointProbe(
      provider, 'vmlinux', '', d.name, { kind: 'tracepoint', group: d.group, event: d.event }, d.args, root,
      d.guardField ? { guardField: d.guardField } : {},
    ));
}

/**
 * One probe of a stable provider built from a tracepoint's raw arguments (the kernel objects the
 * tracepoint is called with: task_struct, request, ...), which DTrace's translators type.
 */
export interface RawDerivedProbe {
  name: string;
  group: string;
  event: string;
  /** The BTF types of the tracepoint's parameters (after __data) the probe relies on, in order. */
  params: string[];
  /**
   * arg0, arg1, ...: a raw parameter (`param`), typed `type`, the translation of `native`; with
   * `deref`, the u64 at that offset (worked out on first use) in the object it points to; with
   * `source`, the value that source (worked out on first use) gives. A null type: argN only, no
   * args[N] (values a provider's translators read, as DTrace's tcp arg6 and arg7).
   */
  args: { type: string | null; native?: string; param: number; deref?: () => number; source?: () => ArgSource }[];
  /** Conditions to fire (see Probe.guard), or a function giving them on first use. */
  guard?: Guard[] | (() => Guard[]);
}

/** A raw-tracepoint probe; the tracepoint's prototype is checked against BTF on first attach. */
export class RawTracepointProbe implements Probe {
  id = 0;
  readonly module = 'vmlinux';
  readonly func = '';
  readonly name: string;
  private checked = false;
  private cachedArgs: ProbeArg[] | null = null;
  private cachedGuard: Guard[] | undefined;
  constructor(readonly provider: string, private readonly d: RawDerivedProbe) {
    this.name = d.name;
  }
  get guard(): Guard[] | undefined {
    return (this.cachedGuard ??= typeof this.d.guard === 'function' ? this.d.guard() : this.d.guard);
  }
  get args(): ProbeArg[] {
    return (this.cachedArgs ??= this.d.args.map((a, index) => ({
      index, type: a.type, ...(a.native ? { native: a.native } : {}),
      from: a.source ? a.source()
        : a.deref ? { kind: 'rawDeref', index: a.param, offset: a.deref() } : { kind: 'raw', index: a.param },
    })));
  }
  get attach(): Attach {
    if (!this.checked) checkRawPrototype(this.d.event, this.d.params), (this.checked = true);
    return { kind: 'rawTracepoint', event: this.d.event };
  }
}

/** The parameter types of the kernel's trace_EVENT (btf_trace_EVENT), __data left out. */
export function rawPrototype(event: string): string[] {
  const btf = loadKernelBtf();
  const ptr = btf.resolvedType(btf.get(`btf_trace_${event}`, 'typedef').id);
  const proto = ptr.kind === 'ptr' ? btf.resolvedType(ptr.target) : ptr;
  if (proto.kind !== 'func_proto') throw new Error(`btf_trace_${event} is not a function pointer`);
  return proto.params.slice(1).map((p) => btf.typeName(p.type));
}

/** Refuse a tracepoint whose raw arguments are not where a probe expects them. */
function checkRawPrototype(event: string, params: string[]): void {
  const have = rawPrototype(event);
  if (params.some((t, i) => have[i] !== t)) {
    throw new Error(`tracepoint ${event} takes (${have.join(', ')}), not (${params.join(', ')})`);
  }
}

/** The raw probes of a stable provider whose tracepoints this kernel has. */
export function rawDerivedProbes(provider: string, table: RawDerivedProbe[], root: string): Probe[] {
  return table.filter((d) => eventExists(d.group, d.event, root)).map((d) => new RawTracepointProbe(provider, d));
}

/** A stable provider made of raw-tracepoint probes (io, ip, tcp, udp, lockstat): what this kernel has of its table. */
export class RawDerivedProvider implements Provider {
  constructor(readonly name: string, readonly attributes: ProviderAttributes, private readonly probes: RawDerivedProbe[], private readonly root?: string) {}
  hasProbeNamed = (name: string): boolean => this.probes.some((p) => p.name === name);
  list(): Probe[] {
    return rawDerivedProbes(this.name, this.probes, this.root ?? tracefsRoot());
  }
}
