// The fbt provider (kernel function entry and return). It needs kprobes or fentry/fexit programs;
// where the kernel offers neither it lists nothing, and the registry keeps the reason so that a
// description naming fbt says plainly why it matches nothing.

import { existsSync } from 'node:fs';
import { type Probe, type Provider } from './provider.js';
import { attr, type ProviderAttributes } from '../abi/stability.js';

const ATTRIBUTES: ProviderAttributes = {
  provider: attr('Evolving', 'Evolving', 'Common'),
  module: attr('Private', 'Private', 'Unknown'),
  function: attr('Private', 'Private', 'ISA'),
  name: attr('Evolving', 'Evolving', 'Common'),
  args: attr('Private', 'Private', 'ISA'),
};

/** Why fbt cannot be offered on this kernel (null when kprobes exist). */
export function fbtUnavailable(): string | null {
  const kprobes = existsSync('/sys/bus/event_source/devices/kprobe') || existsSync('/sys/kernel/tracing/kprobe_events');
  if (!kprobes)
    return 'this kernel has no kprobes (CONFIG_KPROBES is off) and refuses fentry/fexit programs, so kernel functions cannot be traced';
  return 'fbt probes through kprobes are not implemented yet';
}

export class FbtProvider implements Provider {
  readonly name = 'fbt';
  readonly attributes = ATTRIBUTES;
  hasProbeNamed = (name: string): boolean => name === 'entry' || name === 'return';

  list(): Probe[] {
    const why = fbtUnavailable();
    if (why) throw new Error(why);
    return [];
  }
}
