// The profile provider: timer probes.
//   profile:::profile-N  fires on every CPU every period
//   profile:::tick-N     fires on one CPU every period
// N is a number with an optional unit: ns nsec us usec ms msec s sec m min h hour d day hz
// (case-insensitive); a bare number is a rate in hertz. Periods under 200us are refused, as in
// DTrace. Both kinds give arg0 = kernel PC (0 in user mode) and arg1 = user PC (0 in the kernel),
// untyped.

import { isGlob, matchField } from './glob.js';
import { type Probe, type ProbeArg, type ProbeSpec, type Provider } from './provider.js';
import { attr, type ProviderAttributes } from '../abi/stability.js';

const ATTRIBUTES: ProviderAttributes = {
  provider: attr('Evolving', 'Evolving', 'Common'),
  module: attr('Unstable', 'Unstable', 'Unknown'),
  function: attr('Private', 'Private', 'Unknown'),
  name: attr('Evolving', 'Evolving', 'Common'),
  args: attr('Evolving', 'Evolving', 'Common'),
};

/** The probes DTrace lists before any are asked for. */
const LISTED_PROFILE_HZ = [97, 199, 499, 997, 1999, 4001, 4999];
const LISTED_TICK_HZ = [1, 10, 100, 500, 1000, 5000];

export const MIN_PERIOD_NS = 200_000n;

const NS_PER_UNIT: Record<string, bigint> = {
  ns: 1n,
  nsec: 1n,
  us: 1_000n,
  usec: 1_000n,
  ms: 1_000_000n,
  msec: 1_000_000n,
  s: 1_000_000_000n,
  sec: 1_000_000_000n,
  m: 60n * 1_000_000_000n,
  min: 60n * 1_000_000_000n,
  h: 3600n * 1_000_000_000n,
  hour: 3600n * 1_000_000_000n,
  d: 86400n * 1_000_000_000n,
  day: 86400n * 1_000_000_000n,
};

const NAME = /^(profile|tick)-(\d+)([A-Za-z]*)$/;

export interface ProfileName {
  perCpu: boolean; // profile-N: every CPU; tick-N: one CPU
  periodNs: bigint;
}

/** Parse a profile probe name ('profile-997', 'tick-1s', 'profile-10ms'); null if not valid. */
export function parseProfileName(name: string): ProfileName | null {
  const m = NAME.exec(name);
  if (!m) return null;
  const value = BigInt(m[2]);
  if (value === 0n) return null;
  const unit = m[3].toLowerCase();
  let periodNs: bigint;
  if (unit === '' || unit === 'hz') {
    periodNs = 1_000_000_000n / value;
  } else {
    const mult = NS_PER_UNIT[unit];
    if (mult === undefined) return null;
    periodNs = value * mult;
  }
  if (periodNs < MIN_PERIOD_NS) return null;
  return { perCpu: m[1] === 'profile', periodNs };
}

const PC_ARGS: ProbeArg[] = [
  { index: 0, type: null, from: { kind: 'pc', mode: 'kernel' } },
  { index: 1, type: null, from: { kind: 'pc', mode: 'user' } },
];

function profileProbe(name: string, timer: ProfileName): Probe {
  return {
    id: 0,
    provider: 'profile',
    module: '',
    func: '',
    name,
    attach: { kind: 'profile', periodNs: timer.periodNs, perCpu: timer.perCpu },
    args: PC_ARGS.map((a) => ({ ...a })),
  };
}

export class ProfileProvider implements Provider {
  readonly name = 'profile';
  readonly attributes = ATTRIBUTES;

  list(): Probe[] {
    const names = [
      ...LISTED_PROFILE_HZ.map((hz) => `profile-${hz}`),
      ...LISTED_TICK_HZ.map((hz) => `tick-${hz}`),
    ];
    return names.map((n) => profileProbe(n, parseProfileName(n)!));
  }

  /** A description naming an exact profile-N or tick-N (as `dtrace -n tick-1s` does) creates it. */
  provide(spec: ProbeSpec): Probe[] {
    if (!matchField(spec.provider, 'profile')) return [];
    if (!matchField(spec.module, '') || !matchField(spec.function, '')) return [];
    if (isGlob(spec.name)) return [];
    const timer = parseProfileName(spec.name);
    return timer ? [profileProbe(spec.name, timer)] : [];
  }
}
