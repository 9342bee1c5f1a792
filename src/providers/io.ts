// The io provider, from the block layer's request tracepoints, attached raw: their argument is the
// struct request, which lib/dtrace/io.d translates to args[0] bufinfo_t *, args[1] devinfo_t *
// and args[2] fileinfo_t *, as DTrace types them.
//   io:::start  block:block_rq_issue, when the request goes to the device driver
//   io:::done   block:block_rq_complete, when the device has completed it (before the request
//               is advanced, so b_bcount is still the request's size)
// wait-start and wait-done have no tracepoint here (dtrace(1) NOTES).

import { STABLE_PROVIDER_ATTRIBUTES } from './proc.js';
import { RawDerivedProvider, type RawDerivedProbe } from './tracepoint-probe.js';

const REQUEST = 'struct request *';
const ARGS = [
  { type: 'bufinfo_t *', native: REQUEST, param: 0 },
  { type: 'devinfo_t *', native: REQUEST, param: 0 },
  { type: 'fileinfo_t *', native: REQUEST, param: 0 },
];

const PROBES: RawDerivedProbe[] = [
  { name: 'done', group: 'block', event: 'block_rq_complete', params: [REQUEST, 'blk_status_t', 'unsigned int'], args: ARGS },
  { name: 'start', group: 'block', event: 'block_rq_issue', params: [REQUEST], args: ARGS },
];

export class IoProvider extends RawDerivedProvider {
  constructor(root?: string) {
    super('io', STABLE_PROVIDER_ATTRIBUTES, PROBES, root);
  }
}
