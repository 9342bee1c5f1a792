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
import { PidProvider } from './pid.js';
import { UsdtProvider } from './usdt.js';
import { SdtProvider } from './sdt.js';
import { ProcProvider } from './proc.js';
import { SchedProvider } from './sched.js';
import { IoProvider } from './io.js';
import { FbtProvider } from './fbt.js';
import { CpcProvider } from './cpc.js';
import { IpProvider } from './ip.js';
import { TcpProvider } from './tcp.js';
import { UdpProvider } from './udp.js';
import { LockstatProvider } from './lockstat.js';
import { RawtpProvider } from './rawtp.js';

/** A provider whose probes could not be listed, and why (e.g. tracefs could not be mounted). */
export interface ProviderProblem {
  provider: string;
  reason: string;
}

export function defaultProviders(): Provider[] {
  const others = [new DtraceProvider(), new ProfileProvider(), new SyscallProvider(), new PidProvider(),
    new SdtProvider(), new ProcProvider(), new SchedProvider(), new IoProvider(), new FbtProvider(), new CpcProvider(),
    new IpProvider(), new TcpProvider(), new UdpProvider(), new LockstatProvider(), new RawtpProvider()];
  const usdt = new UsdtProvider(new Set(others.map((p) => p.name)));
  return [...others.slice(0, 4), usdt, ...others.slice(4)];
}

export class ProbeRegistry {
  readonly providers: Provider[];
  readonly problems: ProviderProblem[] = [];
  private readonly probes: Probe[] = [];
  private readonly byKey = new Map<string, Probe>();
  /** match()'s results by description, with how many probes there were then. */
  private readonly matched = new Map<string, { probes: number; result: Probe[] }>();

  /**
   * RFD 2: the instance names this registry's probes answer to. Locally only 'host'; an agent
   * (dtraced) answers to its own name and to 'host' (with a fleet, an omitted instance means every
   * instance), and a fleet consumer compiles against every instance's name.
   */
  instanceNames: string[] = ['host'];

  /** Providers listed so far: they are listed in order, and only as far as a lookup needs. */
  private listed = 0;

  constructor(providers: Provider[] = defaultProviders()) {
    this.providers = providers;
  }

  /**
   * List the providers before index `end` not listed yet. Listing is lazy because it scans
   * tracefs and more: a program of dtrace:::BEGIN alone needs none of the others. Ids do not
   * depend on it, as providers are always listed in order.
   */
  private listThrough(end: number): void {
    for (; this.listed < Math.min(end, this.providers.length); this.listed++) {
      const provider = this.providers[this.listed];
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

  /** Index after the last provider a description's provider field can name (all for a glob). */
  private extentOf(providerPattern: string): number {
    if (providerPattern === '' || /[*?[\\]/.test(providerPattern)) return this.providers.length;
    let end = 0;
    this.providers.forEach((p, i) => {
      if (p.name === providerPattern || p.ownsProviderName?.(providerPattern)) end = i + 1;
    });
    return end;
  }

  /** Why the providers a description's provider field names could not list probes, if any. */
  /** Why a description that matches nothing is wrong, as the provider its provider name is says. */
  /** Does an instance element (RFD 2; absent is 'host') name this machine or a fleet's agent? */
  knowsInstance(instance: string | undefined): boolean {
    return instance === undefined || this.instanceNames.some((n) => matchField(instance, n));
  }

  refusalFor(spec: ProbeSpec): { tag: string; message: string } | undefined {
    for (const provider of this.providers) {
      if (!provider.refusal || !provider.ownsProviderName?.(spec.provider, spec.module)) continue;
      const why = provider.refusal(spec);
      if (why) return why;
    }
    return undefined;
  }

  problemsFor(providerPattern: string, name = ''): ProviderProblem[] {
    if (providerPattern === '') return [];
    this.listThrough(this.extentOf(providerPattern));
    const found = this.problems.filter((p) => matchField(providerPattern, p.provider));
    // A probe named exactly that its provider cannot give here says why.
    if (name !== '' && !/[*?[\\]/.test(name)) {
      for (const p of this.providers) {
        const why = matchField(providerPattern, p.name) ? p.missing?.(name) : undefined;
        if (why) found.push({ provider: p.name, reason: why });
      }
    }
    return found;
  }

  /** Every probe, in id order. */
  all(): Probe[] {
    this.listThrough(this.providers.length);
    return this.probes.slice();
  }

  byId(id: number): Probe | undefined {
    while (this.probes.length < id && this.listed < this.providers.length) this.listThrough(this.listed + 1);
    const probe = this.probes[id - 1];
    return probe && probe.id === id ? probe : undefined;
  }

  provider(name: string): Provider | undefined {
    return this.providers.find((p) => p.name === name || p.ownsProviderName?.(name));
  }

  /**
   * The probes a description matches, in id order; [] when none. Empty fields match anything.
   * Names a provider creates on demand (profile:::tick-1s) are created first.
   */
  match(spec: ProbeSpec): Probe[] {
    // Descriptions for other instances (RFD 2) name probes on other machines.
    if (!this.knowsInstance(spec.instance)) return [];
    // A program repeats descriptions (ten thousand BEGIN clauses): each is matched once while
    // the probes stay the same.
    const key = `${spec.provider}:${spec.module}:${spec.function}:${spec.name}`;
    const known = this.matched.get(key);
    if (known && known.probes === this.probes.length) return [...known.result];
    const result = this.matchNow(spec);
    this.matched.set(key, { probes: this.probes.length, result });
    return [...result];
  }

  /**
   * Index after the last provider that may hold a probe the description matches: its provider
   * field's extent, less the providers at its end that cannot have the probe name it gives.
   */
  private extentFor(spec: ProbeSpec): number {
    let end = this.extentOf(spec.provider);
    if (spec.name === '' || /[*?[\\]/.test(spec.name)) return end;
    while (end > this.listed && this.providers[end - 1].hasProbeNamed?.(spec.name) === false) end--;
    return end;
  }

  private matchNow(spec: ProbeSpec): Probe[] {
    // Probes made on demand take the next free id: list every provider that may hold the
    // description's probes before making one.
    const extent = this.extentFor(spec);
    this.listThrough(extent);
    // Per-process providers (pid, USDT) resolve names themselves (a.out, 0x10): what they return
    // for a description is what it matches.
    const resolved = new Set<Probe>();
    for (const provider of this.providers) {
      const asked = provider.ownsProviderName
        ? provider.ownsProviderName(spec.provider, spec.module)
        : matchField(spec.provider, provider.name);
      if (!provider.provide || !asked) continue;
      for (const probe of provider.provide(spec)) {
        if (!this.byKey.has(keyOf(probe))) this.add(probe);
        if (provider.ownsProviderName) resolved.add(this.byKey.get(keyOf(probe))!);
      }
    }
    return this.probes.filter(
      (p) =>
        resolved.has(p) ||
        (matchField(spec.provider, p.provider) &&
          matchField(spec.module, p.module) &&
          matchField(spec.function, p.func) &&
          matchField(spec.name, p.name)),
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
