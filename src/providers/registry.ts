// The probe registry: every provider's probes under stable DTrace probe ids, and matching of probe
// descriptions against them.
//
// Ids are assigned as DTrace does, from 1, provider by provider in a fixed order (dtrace's BEGIN=1,
// END=2, ERROR=3 first); probes created on demand (profile-1234) get the next free id. New
// providers are appended to the order so existing ids do not move.

import { DtraceProvider } from './dtrace.js';
import { matchField } from './glob.js';
import { ProfileProvider } from './profile.js';
import type { Probe, ProbeSpec, Provider } from './provider.js';
import { SyscallProvider } from './syscall.js';

/** A provider whose probes could not be listed, and why (e.g. tracefs could not be mounted). */
export interface ProviderProblem {
  provider: string;
  reason: string;
}

export function defaultProviders(): Provider[] {
  return [new DtraceProvider(), new ProfileProvider(), new SyscallProvider()];
}

export class ProbeRegistry {
  readonly providers: Provider[];
  readonly problems: ProviderProblem[] = [];
  private readonly probes: Probe[] = [];
  private readonly byKey = new Map<string, Probe>();

  constructor(providers: Provider[] = defaultProviders()) {
    this.providers = providers;
    for (const provider of providers) {
      let listed: Probe[];
      try {
        listed = provider.list();
      } catch (e) {
        this.problems.push({ provider: provider.name, reason: (e as Error).message });
        continue;
      }
      for (const probe of listed) this.add(probe);
    }
  }

  /** Every probe, in id order. */
  all(): Probe[] {
    return this.probes.slice();
  }

  byId(id: number): Probe | undefined {
    const probe = this.probes[id - 1];
    return probe && probe.id === id ? probe : undefined;
  }

  provider(name: string): Provider | undefined {
    return this.providers.find((p) => p.name === name);
  }

  /**
   * The probes a description matches, in id order; [] when none. Empty fields match anything.
   * Names a provider creates on demand (profile:::tick-1s) are created first.
   */
  match(spec: ProbeSpec): Probe[] {
    // Descriptions for other instances (RFD 2) name probes on other machines.
    if (spec.instance !== undefined && !matchField(spec.instance, 'host')) return [];
    for (const provider of this.providers) {
      if (!provider.provide || !matchField(spec.provider, provider.name)) continue;
      for (const probe of provider.provide(spec)) {
        if (!this.byKey.has(keyOf(probe))) this.add(probe);
      }
    }
    return this.probes.filter(
      (p) =>
        matchField(spec.provider, p.provider) &&
        matchField(spec.module, p.module) &&
        matchField(spec.function, p.func) &&
        matchField(spec.name, p.name),
    );
  }

  private add(probe: Probe): void {
    const key = keyOf(probe);
    if (this.byKey.has(key)) return; // one probe per provider:module:function:name
    probe.id = this.probes.length + 1;
    this.probes.push(probe);
    this.byKey.set(key, probe);
  }
}

function keyOf(p: Probe): string {
  return `${p.provider}:${p.module}:${p.func}:${p.name}`;
}

let shared: ProbeRegistry | null = null;

/** The registry of this machine's providers, built on first use and then shared. */
export function probeRegistry(): ProbeRegistry {
  return (shared ??= new ProbeRegistry());
}
