// The dtrace provider: BEGIN, END and ERROR, fired by dtrace itself rather than by the kernel.
//
// ERROR's arguments (arg1 enabled probe id, arg2 clause index, arg3 DIF offset, arg4 fault type,
// arg5 fault value) are filled by the bridge from the fault it recorded; no kernel source here.

import { type Probe, type Provider } from './provider.js';
import { attr, type ProviderAttributes } from '../abi/stability.js';

const ATTRIBUTES: ProviderAttributes = {
  provider: attr('Stable', 'Stable', 'Common'),
  module: attr('Private', 'Private', 'Unknown'),
  function: attr('Private', 'Private', 'Unknown'),
  name: attr('Stable', 'Stable', 'Common'),
  args: attr('Stable', 'Stable', 'Common'),
};

const WHICH = ['BEGIN', 'END', 'ERROR'] as const;

export class DtraceProvider implements Provider {
  readonly name = 'dtrace';
  readonly attributes = ATTRIBUTES;

  list(): Probe[] {
    return WHICH.map((which) => ({
      id: 0,
      provider: 'dtrace',
      module: '',
      func: '',
      name: which,
      attach: { kind: 'dtrace', which },
      args: [],
    }));
  }
}
