// The rawtp provider: every kernel tracepoint as rawtp:GROUP::NAME, as DTrace for Linux offers
// them, firing with the arguments the kernel calls the tracepoint with (a raw tracepoint program,
// BPF_PROG_TYPE_RAW_TRACEPOINT) rather than the record it writes (sdt). args[] are typed from
// BTF's prototype of the tracepoint (btf_trace_NAME), its leading __data left out.

import type { Attach, Probe, ProbeArg, Provider } from './provider.js';
import { TRACEPOINT_ATTRIBUTES, kernelTracepoints } from './sdt.js';
import { rawPrototype } from './tracepoint-probe.js';
import { tracefsRoot } from './tracefs.js';

class RawtpProbe implements Probe {
  id = 0;
  readonly provider = 'rawtp';
  readonly func = '';
  private cachedArgs: ProbeArg[] | null = null;

  constructor(readonly module: string, readonly name: string) {}

  get args(): ProbeArg[] {
    if (this.cachedArgs) return this.cachedArgs;
    let params: string[];
    try {
      params = rawPrototype(this.name);
    } catch {
      params = []; // no BTF prototype: arg0..argN still read the raw arguments, untyped
    }
    return (this.cachedArgs = params.map((type, index) => ({ index, type, from: { kind: 'raw', index } })));
  }

  get attach(): Attach {
    return { kind: 'rawTracepoint', event: this.name };
  }
}

export class RawtpProvider implements Provider {
  readonly name = 'rawtp';
  readonly attributes = TRACEPOINT_ATTRIBUTES;
  hasProbeNamed = (name: string): boolean => /^[a-z0-9_]+$/.test(name);

  constructor(private readonly root?: string) {}

  list(): Probe[] {
    return kernelTracepoints(this.root ?? tracefsRoot()).map(([group, event]) => new RawtpProbe(group, event));
  }
}
