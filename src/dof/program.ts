// The program model: what the compiler produces and what DOF carries.
//
// These are the in-memory forms of DOF's sections (ECB descriptions, probe descriptions, action
// descriptions and DIF objects). The compiler builds them, the DOF writer encodes them, the DOF
// reader decodes them, and the kernel bridge (device) consumes the decoded form. Nothing after the
// DOF writer sees the AST: everything a later stage needs must be expressible here.

import type { ProviderAttributes } from '../abi/stability.js';
import type { Difo } from '../dif/difo.js';

/** A probe description (dtrace_probedesc_t), with the RFD 2 instance element. */
export interface ProbeDescription {
  instance: string; // "host" unless the description names one
  provider: string;
  module: string;
  function: string;
  name: string;
  id: number; // DTRACE_IDNONE (0) unless a specific probe id is requested (dtrace -i)
}

/** An action description (dtrace_actdesc_t). */
export interface ActionDescription {
  kind: number; // DTRACEACT_* or DTRACEAGG_*
  difo: Difo | null;
  ntuple: number; // number of tuple (key) records preceding an aggregating action
  arg: bigint; // kind-specific argument (e.g. lquantize parameters encoded as DTrace does)
  uarg: bigint; // opaque to the kernel; for aggregating actions the aggregation variable id
  /** printf-like actions: the format string (DOF: dofa_strtab + dofa_arg offset). */
  format?: string;
  /** aggregating actions: the aggregation's name without '@' (DOF: dofa_strtab + dofa_uarg offset). */
  aggName?: string;
}

/** An ECB description (dtrace_ecbdesc_t): a probe description, predicate and actions. */
export interface EcbDescription {
  probe: ProbeDescription;
  predicate: Difo | null;
  actions: ActionDescription[];
  uarg: bigint; // user argument: the index of the clause (statement) in the program
}

/** A USDT probe of a provider a program defines (dof_probe_t), with its sites. */
export interface UsdtProbe {
  func: string; // the function the probe sites are in
  name: string; // the probe name (the declaration's name, `__` as `-`)
  addr: bigint; // dofpr_addr: the function's address; 0 in a relocatable object
  nativeTypes: string[]; // the C types of the arguments the program passes
  translatedTypes: string[]; // the argument types D sees (the declaration's, after translation)
  argMap: number[]; // for each translated argument, the native argument it comes from
  offsets: number[]; // the probe sites, as offsets from the function's start
  enabledOffsets: number[]; // the is-enabled sites (`PROVIDER_PROBE_ENABLED()`), the same way
}

/** A USDT provider a program defines (dof_provider_t): what `dtrace -G` describes in DOF. */
export interface UsdtProvider {
  name: string;
  attributes: ProviderAttributes; // provider, module, function, name and args stability
  probes: UsdtProbe[];
}

/** A compiled D program: what DOF encodes. */
export interface Program {
  ecbs: EcbDescription[];
  /** Options set by the program (#pragma D option) or the command line (-x), name -> value. */
  options: Map<string, string>;
  /** USDT providers the program defines, with their probe sites (dtrace -G). */
  providers?: UsdtProvider[];
}

export function probeDescriptionString(p: ProbeDescription): string {
  const four = `${p.provider}:${p.module}:${p.function}:${p.name}`;
  return p.instance && p.instance !== 'host' ? `${p.instance}:${four}` : four;
}
