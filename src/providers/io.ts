// The io provider, from the block layer's request tracepoints:
//   io:::start  block:block_rq_issue     arg0 dev_t, arg1 sector, arg2 sectors, arg3 bytes
//   io:::done   block:block_rq_complete  arg0 dev_t, arg1 sector, arg2 sectors, arg3 error
// DTrace types these as bufinfo_t *, devinfo_t *, fileinfo_t * (translators over the request);
// until the front end has translators they are the record's integers, untyped.

import type { Probe, Provider } from './provider.js';
import { STABLE_PROVIDER_ATTRIBUTES } from './proc.js';
import { derivedProbes, namedFieldArgs, type DerivedProbe } from './tracepoint-probe.js';
import { tracefsRoot } from './tracefs.js';

const PROBES: DerivedProbe[] = [
  { name: 'done', group: 'block', event: 'block_rq_complete', args: namedFieldArgs(['dev', 'sector', 'nr_sector', 'error']) },
  { name: 'start', group: 'block', event: 'block_rq_issue', args: namedFieldArgs(['dev', 'sector', 'nr_sector', 'bytes']) },
];

export class IoProvider implements Provider {
  readonly name = 'io';
  readonly attributes = STABLE_PROVIDER_ATTRIBUTES;
  constructor(private readonly root?: string) {}
  list(): Probe[] {
    return derivedProbes('io', PROBES, this.root ?? tracefsRoot());
  }
}
