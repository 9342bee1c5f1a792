// The cpc provider: CPU performance counter overflow probes, named as DTrace for Linux names them,
// cpc:::EVENT-MODE-N: EVENT a perf event (software events always; hardware events only where the
// kernel has the CPU's PMU), MODE `all`, `user` or `kernel` (where the events are counted), and N
// the count of events between firings (nanoseconds for cpu_clock and task_clock). Like
// profile-N, each fires on every CPU, with arg0 the kernel PC (0 in user mode) and arg1 the user
// PC (0 in the kernel), untyped. -l lists each event's `-all-1000000000` probe, as DTrace does;
// a description naming another mode or count creates it.

import { existsSync } from 'node:fs';
import { isGlob, matchField } from './glob.js';
import type { Counter, Probe, ProbeArg, ProbeSpec, Provider } from './provider.js';
import { attr, type ProviderAttributes } from '../abi/stability.js';

const ATTRIBUTES: ProviderAttributes = {
  provider: attr('Evolving', 'Evolving', 'Common'),
  module: attr('Unstable', 'Unstable', 'Unknown'),
  function: attr('Private', 'Private', 'Unknown'),
  name: attr('Evolving', 'Evolving', 'Common'),
  args: attr('Evolving', 'Evolving', 'Common'),
};

const PERF_TYPE_HARDWARE = 0;
const PERF_TYPE_SOFTWARE = 1;

/** Each event's names (perf's PERF_COUNT_* first, then its aliases) and config, in list order. */
const SOFTWARE: [string[], number][] = [
  [['perf_count_sw_cpu_clock', 'cpu_clock'], 0],
  [['perf_count_sw_task_clock', 'task_clock'], 1],
  [['perf_count_sw_page_faults', 'page_faults', 'faults'], 2],
  [['perf_count_sw_context_switches', 'context_switches', 'cs'], 3],
  [['perf_count_sw_cpu_migrations', 'cpu_migrations', 'migrations'], 4],
  [['perf_count_sw_page_faults_min', 'minor_faults'], 5],
  [['perf_count_sw_page_faults_maj', 'major_faults'], 6],
  [['perf_count_sw_cgroup_switches', 'cgroup_switches'], 11],
];
const HARDWARE: [string[], number][] = [
  [['perf_count_hw_cpu_cycles', 'cpu_cycles', 'cycles'], 0],
  [['perf_count_hw_instructions', 'instructions'], 1],
  [['perf_count_hw_cache_references', 'cache_references'], 2],
  [['perf_count_hw_cache_misses', 'cache_misses'], 3],
  [['perf_count_hw_branch_instructions', 'branch_instructions', 'branches'], 4],
  [['perf_count_hw_branch_misses', 'branch_misses'], 5],
  [['perf_count_hw_bus_cycles', 'bus_cycles'], 6],
];

const LISTED_PERIOD = 1_000_000_000n;
const NAME = /^([a-z_]+)-(all|user|kernel)-(\d+)$/;

const PC_ARGS: ProbeArg[] = [
  { index: 0, type: null, from: { kind: 'pc', mode: 'kernel' } },
  { index: 1, type: null, from: { kind: 'pc', mode: 'user' } },
];

/** The events this machine counts: software always, hardware where the CPU's PMU is there. */
function events(pmu: boolean): { names: string[]; type: number; config: number }[] {
  const soft = SOFTWARE.map(([names, config]) => ({ names, type: PERF_TYPE_SOFTWARE, config }));
  const hard = HARDWARE.map(([names, config]) => ({ names, type: PERF_TYPE_HARDWARE, config }));
  return pmu ? [...hard, ...soft] : soft;
}

function cpcProbe(name: string, counter: Counter, period: bigint): Probe {
  return {
    id: 0, provider: 'cpc', module: '', func: '', name,
    attach: { kind: 'profile', periodNs: period, perCpu: true, counter },
    args: PC_ARGS.map((a) => ({ ...a })),
  };
}

export class CpcProvider implements Provider {
  readonly name = 'cpc';
  readonly attributes = ATTRIBUTES;
  hasProbeNamed = (name: string): boolean => NAME.test(name);
  /** `pmu`: whether the CPU's hardware counters are there (/sys/bus/event_source/devices/cpu). */
  constructor(private readonly pmu = existsSync('/sys/bus/event_source/devices/cpu')) {}

  list(): Probe[] {
    return events(this.pmu).flatMap((e) => e.names.map((n) =>
      cpcProbe(`${n}-all-${LISTED_PERIOD}`, { type: e.type, config: e.config, mode: 'all' }, LISTED_PERIOD)));
  }

  /** An exact EVENT-MODE-N creates that probe. */
  provide(spec: ProbeSpec): Probe[] {
    if (!matchField(spec.provider, 'cpc') || !matchField(spec.module, '') || !matchField(spec.function, '')) return [];
    if (isGlob(spec.name)) return [];
    const m = NAME.exec(spec.name);
    if (!m || BigInt(m[3]) === 0n) return [];
    const e = events(this.pmu).find((x) => x.names.includes(m[1]));
    if (!e) return [];
    return [cpcProbe(spec.name, { type: e.type, config: e.config, mode: m[2] as Counter['mode'] }, BigInt(m[3]))];
  }
}
