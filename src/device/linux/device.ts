// The Linux device: DOF in, eBPF programs attached to the real kernel, records out.
//
// enable() decodes the DOF and runs its steps: match the probes, lay out records, strings,
// globals and scratch memory (layout.ts), create the maps, number the ECBs, translate each
// probe's ECBs into one BPF program and load it. go() attaches them (leaving out vanished
// tracepoints and refused uprobe sites), fires BEGIN and makes tracing active; stop() detaches
// everything, then fires END. Every kernel object is an fd owned by this process, so nothing
// outlives it, even under SIGKILL.

import { readFileSync } from 'node:fs';
import * as D from '../../dif/constants.js';
import { readDof } from '../../dof/reader.js';
import type { ProbeDescription, Program } from '../../dof/program.js';
import type { Probe } from '../../providers/provider.js';
import { ProbeRegistry } from '../../providers/registry.js';
import { LOCKWAIT_ENTRIES, LOCKWAIT_VALUE_SIZE, lockWaitBeginProgram } from './lockwait.js';
import { TCPSOCK_ENTRIES, TCPSOCK_KEY_SIZE, sockOffsets, tcpSockProgram } from './tcpsocks.js';
import { VTIME_VALUE_SIZE, type VtimeEnv, vtimeOffsets, vtimeSwitchProgram } from './vtime.js';
import { eventExists, eventId } from '../../providers/tracefs.js';
import { BPF_F_TEST_RUN_ON_CPU, isNativeError, native } from '../native.js';
import { numericOption, optionDefault, optionValue, tracedCpu } from '../../options.js';
import type { AggregationDescription, AggregationEntry, CpuBuffer, Device, EnableResult } from '../device.js';
import { FLUSH_EPID } from '../../abi/records.js';
import { ALU, BPF_MAP_TYPE, BPF_PROG_TYPE, BpfAsm, HELPER, R0, R1, R2, R3, R4, R5, R6, R8, R9, FP, u32 } from './bpf-asm.js';
import { emitGuard, emitTracepointArg, guardsOf } from './tracepoint-args.js';
import { type AggregationMap, type EcbPlan, type MemLayout, ProbeTranslator, type TranslateEnv, TranslateError, roundUp } from './translate.js';
import { taskFields, taskOffsets } from './kernel-types.js';
import { aggInitialValue, aggIsKeyed } from './aggregate.js';
import { NO_KERNEL_STACK } from './stack.js';
import { symbolizer } from '../../sys/symbols.js';
import { SwitchedMaps, mapKeys } from './agg-switch.js';
import { UprobeSharing, type UprobeGroup } from './uprobe-share.js';
import { attachUprobeMulti, attachUprobeMultiSkipping, BPF_TRACE_UPROBE_MULTI, emitPidFilter, emitUserArg, isUserArg, loadNopProgram, uprobeEvents, uprobeFailure, uprobeMultiSupported } from './uprobe.js';
import { DispatchPlan } from './dispatch.js';
import { findErrorProbe, isErrorProbe } from './error-probe.js';
import { loadChain } from './chain.js';
import { type LoadAttempt, explainRejection, sabotageForTest } from './rejection.js';
import { SpeculationMaps, usesSpeculations } from './speculation.js';
import { cpuinfoTable, usesCpuinfo } from './cpuinfo.js';
import { DeviceError } from './device-error.js';
import type { DeviceDebug } from './debug.js';
import {
  type GlobalsLayout, type MemoryLayout, type ProbeMatch, type ProbeStrings, PERCPU_VALUE_MAX, aggregationEntries, assignEpids, layoutGlobals, layoutMemory,
  layoutRecords, layoutStrings, matchProbes, programDifos, switchedAggregations,
} from './layout.js';

export { DeviceError };
export type { DeviceDebug };

const PERF_TYPE_SOFTWARE = 1;
const PERF_TYPE_TRACEPOINT = 2;
const PERF_COUNT_SW_CPU_CLOCK = 0;
const PERF_COUNT_SW_BPF_OUTPUT = 10;
const PERF_SAMPLE_RAW = 1 << 10;
// The tracing activity word's values (the translator's prologue runs a probe only when ACTIVE).
const ACTIVITY_ACTIVE = 0;
const ACTIVITY_WARMUP = 2; // 1 is DRAINING, set by exit()
// The largest principal buffer per CPU: a perf ring is locked memory. A larger bufsize is lowered
// by halves under bufresize=auto (100t becomes 200m, as the public suite's illumos machines had it).
const BUFSIZE_MAX = 256 << 20;
// The most aggsize taken: 4M entries of 64 bytes (layout.ts aggregationEntries), allocated as
// keys arrive beyond the 65536 entries of the default 4 MB.
const AGGSIZE_MAX = 256 << 20;
const PREALLOC_ENTRIES_MAX = 65536;
const BPF_F_NO_PREALLOC = 1; // PCPU_MIN_UNIT_SIZE: the largest per-CPU map value

/** The tracing options the device takes from the DOF's OPTDESC (see tracingOptions()). */
interface TracingOptions {
  strsize: number;
  bufsize: number; // bytes per CPU
  /** -x bufresize: auto (default) lowers a bufsize the kernel cannot give; manual fails. */
  bufresize: 'auto' | 'manual';
  aggsize: number; // bytes (aggregationEntries)
  dynvarsize: number; // bytes of dynamic variable space (thread-locals, associative arrays)
  nspec: number; // speculations
  specsize: number; // bytes of each speculation per CPU
  /** -x scratchsize: bytes of DTrace's scratch space (alloca(), copyinto(), bcopy()) per clause; else what its alloca() calls take. */
  scratchsize?: number;
  /** -x cpu: probes fire and record only on this CPU, whose buffer alone is read; BEGIN and END run there. */
  cpu?: number;
  /** -x maxframes: the most frames stackdepth and ustackdepth count (stack() and ustack() are cut by the compiler). */
  maxframes: number;
}

/** A program about to be loaded, for -S: its probe, its clauses (as written, and their index) and code. */
export interface ProgramListing {
  probe: string;
  clauses: { description: string; index: number }[];
  insns: Buffer;
}

/** Where -x bpflog's verifier logs go; `notice` says when one was too large to keep. */
export interface BpfLog {
  size: number;
  log: (text: string) => void;
  notice: (text: string) => void;
}

/** What the device is told besides the DOF. */
export interface LinuxDeviceOptions {
  verbose: boolean; // the verifier's log on errors (-v, -x debug, -x bpflog)
  /** -x bpflog: every accepted program's verifier log, of at most `size` bytes (-x bpflogsize), to `log`. */
  bpflog?: BpfLog;
  /** -S, -x verbose: each program as it is loaded, with the probe it serves and the clauses it runs. */
  listing?: (program: ProgramListing) => void;
  debug?: DeviceDebug;
  /** RFD 2: the instance this device traces, probeinstance's value ('host' unless an agent names it). */
  instance?: string;
}

/**
 * The tracing options of a program, as its DOF carries them (-x and pragmas alike), with DTrace's
 * defaults from src/options.ts.
 */
function tracingOptions(options: ReadonlyMap<string, string>): TracingOptions {
  const bufsize = numericOption(options, 'bufsize');
  return {
    // DTrace for Linux holds strsize characters and their NUL: every string slot is a byte longer.
    strsize: numericOption(options, 'strsize') + 1,
    // Under fill and ring the consumer keeps bufsize bytes a CPU; the kernel's buffers carry the
    // records to it and must not lose them first.
    bufsize: optionValue(options, 'bufpolicy') === 'switch' ? bufsize : Math.max(bufsize, Number(optionDefault('bufsize'))),
    bufresize: optionValue(options, 'bufresize') === 'manual' ? 'manual' : 'auto',
    aggsize: numericOption(options, 'aggsize'),
    dynvarsize: numericOption(options, 'dynvarsize'),
    nspec: numericOption(options, 'nspec'),
    specsize: numericOption(options, 'specsize'),
    scratchsize: options.has('scratchsize') ? numericOption(options, 'scratchsize') : undefined,
    cpu: tracedCpu(options),
    maxframes: numericOption(options, 'maxframes'),
  };
}

function cpuList(file: string): number[] {
  const out: number[] = [];
  for (const part of readFileSync(file, 'utf8').trim().split(',')) {
    const [lo, hi] = part.split('-').map(Number);
    for (let c = lo; c <= (hi ?? lo); c++) out.push(c);
  }
  return out;
}

interface LoadedProbe {
  probe: Probe;
  progFd: number;
  events: number[]; // perf event fds once attached
  /** A program shared by uprobe sites (uprobe-share.ts), attached by uprobe-multi links. */
  group?: UprobeGroup;
}

export class LinuxDevice implements Device {
  private fds: number[] = [];
  /** Every probe program, for their recursion misses (recursionMisses()). */
  private progFds: number[] = [];
  private missesSeen = 0;
  private buffers: { cpu: number; fd: number; handle: number }[] = [];
  /** The size each CPU's buffer was lowered to, by halves of bufsize (bufresize=auto). */
  bufsizeLowered?: number;
  /** The aggsize taken when -x aggsize was more than the maps hold (bufresize=auto). */
  aggsizeLowered?: number;

  /**
   * The bytes a per-CPU buffer of `bufsize` gets: a perf ring is a power of two pages, so a size
   * between two is raised to the next (dtrace(1) for Linux then says "bufsize increased to N").
   */
  static ringSize(bufsize: number): number {
    const pageSize = native.pageSize();
    return pageSize * 2 ** Math.ceil(Math.log2(Math.max(1, Math.ceil(bufsize / pageSize))));
  }
  /**
   * Probes whose tracepoint went away between matching and attaching (another tool removed its
   * event): skipped, and dtrace(1) names them; when every probe went away, go() fails by name.
   */
  readonly vanished: string[] = [];
  /**
   * Functions whose probes the kernel refused to place (their instruction cannot be probed),
   * left out of tracing rather than failing the program: dtrace(1) names them in one line.
   */
  uninstrumented: string[] = [];
  /** Probes some description names without a glob: refused, they fail the enabling. */
  private exact = new Set<number>();
  private loaded: LoadedProbe[] = [];
  /** The perf event array every program writes its records to. */
  private eventsFd: number | undefined;
  /** stop() has run; drain() after it has told the last interval's lost records. */
  private stopped = false;
  private flushed = false;
  private begin: number[] = [];
  private end: number[] = [];
  /** The globals map, whose first word is the tracing activity (ACTIVE, DRAINING, WARMUP). */
  private globals: { fd: number; size: number } | null = null;
  private aggs: { desc: AggregationDescription; map: AggregationMap }[] = [];
  private aggDropsFd: number | undefined;
  private dvarDropsFd: number | undefined;
  private dvarDropsSeen = 0;
  private spec: SpeculationMaps | undefined;
  /** Does the enabling speculate (its speculation maps exist)? */
  get speculates(): boolean {
    return this.spec !== undefined;
  }
  /** Per-CPU map values hold one slot for each possible CPU, as the kernel counts them. */
  private ncpu = native.possibleCpus();
  /** The buffers of aggregations clear() or trunc() names, switched at each snapshot, by outer map. */
  private switched = new Map<number, SwitchedMaps>();
  private onlineCpus = cpuList('/sys/devices/system/cpu/online');
  private closed = false;
  /** Semaphores held up for probes that need them (SemaphoreHold), by process, file and offset. */
  private holds = new Map<string, number[]>();
  private nopProg: number | undefined;

  /** The program's tracing options, known once enable() has read its DOF. */
  private opts: TracingOptions = tracingOptions(new Map());

  constructor(private registry: ProbeRegistry, private settings: LinuxDeviceOptions) {}

  /**
   * Enabling, in steps: match the probes, lay out records, strings, globals and scratch memory
   * (layout.ts), create the maps, number the ECBs, then translate and load each probe's program.
   * go() attaches them.
   */
  enable(dof: Buffer): EnableResult {
    const program = readDof(dof);
    this.opts = tracingOptions(program.options);
    const { strsize } = this.opts;
    const match = matchProbes(this.registry, program);
    this.exact = match.exact;
    const enabled = [...match.byProbe.values()].map((e) => e.probe);
    const records = layoutRecords(program, strsize);
    const strings = layoutStrings(program, enabled, this.settings.instance ?? 'host');
    const globals = layoutGlobals(program, strsize);
    const memory = layoutMemory(program, records, enabled, this.opts);
    const maps = this.createMaps(program, records.aggregations, switchedAggregations(program, records.aggregations), strings.bytes, globals, memory, enabled.some(interrupts));
    if (enabled.some((probe) => probe.args.some((x) => x.from?.kind === 'lockWait'))) memory.mem.lockWaitFd = this.followLockWaits();
    if (enabled.some((probe) => probe.args.some((x) => x.from?.kind === 'tcpSocket'))) memory.mem.tcpSocksFd = this.followTcpSockets();
    const { probes, plans } = assignEpids(program, match.byProbe, records.ecbs);
    const env: ProgramEnv = {
      ...maps, mem: memory.mem, strsize, difoStrtab: strings.difoStrtab, instanceString: strings.instanceString, globals: globals.vars, writableGlobals: globals.writable,
      activityOffset: 0, aggDropsFd: this.aggDropsFd,
      task: needsTask(program) ? taskOffsets() : null,
      walltimeOffsetNs: BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint(),
      spec: this.spec?.env, errorProbe: findErrorProbe(enabled, plans, strings.probeStrings), cpu: this.opts.cpu, maxframes: this.opts.maxframes, debug: this.settings.debug,
    };
    this.translateProbes(match.byProbe, plans, strings.probeStrings, env);
    return { probes, aggregations: this.aggs.map((a) => a.desc), matched: match.matched };
  }

  /**
   * Every map the programs share: scratch memory, globals, string table, curcpu's table,
   * vtimestamp's, the perf event array (and its buffers), aggregations, dynamic variables and
   * speculations.
   */
  private createMaps(program: Program, aggDescs: AggregationDescription[], switched: Set<number>, strtabBytes: Buffer, globals: GlobalsLayout, memory: MemoryLayout, interrupting: boolean): ProgramMaps {
    // A second element for the programs that interrupt others (TranslateEnv.memFd).
    const memFd = this.map({ type: BPF_MAP_TYPE.PERCPU_ARRAY, keySize: 4, valueSize: memory.mem.size, maxEntries: interrupting ? 2 : 1, name: 'dt_mem' });
    const globalsFd = this.map({ type: BPF_MAP_TYPE.ARRAY, keySize: 4, valueSize: globals.size, maxEntries: 1, name: 'dt_globals' });
    this.globals = { fd: globalsFd, size: globals.size };
    const strtabFd = this.map({ type: BPF_MAP_TYPE.ARRAY, keySize: 4, valueSize: Math.max(8, roundUp(strtabBytes.length, 8)), maxEntries: 1, name: 'dt_strtab' });
    const strValue = Buffer.alloc(Math.max(8, roundUp(strtabBytes.length, 8)));
    strtabBytes.copy(strValue);
    native.mapUpdate(strtabFd, u32(0), strValue, 0);
    const difos = programDifos(program);
    // curcpu's table (cpuinfo.ts): only for programs that use curcpu as a pointer.
    let cpuinfoFd: number | undefined;
    if (difos.some(usesCpuinfo)) {
      const table = cpuinfoTable(this.ncpu, this.onlineCpus);
      cpuinfoFd = this.map({ type: BPF_MAP_TYPE.ARRAY, keySize: 4, valueSize: table.length, maxEntries: 1, name: 'dt_cpuinfo' });
      native.mapUpdate(cpuinfoFd, u32(0), table, 0);
    }
    const vtime = difos.some((d) => d.vartab.some((v) => v.id === D.DIF_VAR_VTIMESTAMP)) ? this.followSwitches() : undefined;
    const eventsFd = this.map({ type: BPF_MAP_TYPE.PERF_EVENT_ARRAY, keySize: 4, valueSize: 4, maxEntries: this.ncpu, name: 'dt_events' });
    this.eventsFd = eventsFd;
    this.openBuffers(eventsFd);
    const { aggregations, aggInitFd } = this.aggregationMaps(aggDescs, switched);

    let dvarFd = -1;
    const plan = memory.vars;
    if (plan.dynamic.size > 0) {
      dvarFd = this.map({ type: BPF_MAP_TYPE.HASH, keySize: plan.keySize, valueSize: plan.valueSize, maxEntries: Math.max(1, plan.capacity), name: 'dt_dvars' });
      this.dvarDropsFd = this.map({ type: BPF_MAP_TYPE.PERCPU_ARRAY, keySize: 4, valueSize: 8, maxEntries: 1, name: 'dt_dvardrops' });
    }
    if (usesSpeculations(program.ecbs))
      this.spec = SpeculationMaps.create((o) => this.map(o), this.opts.nspec, this.opts.specsize, this.ncpu);
    return {
      memFd, globalsFd, strtabFd, eventsFd, cpuinfoFd, vtime, aggregations, aggInitFd,
      vars: { plan, base: memory.varsBase, mapFd: dvarFd, dropsFd: this.dvarDropsFd ?? -1 },
    };
  }

  /** lockstat's wait times (lockwait.ts): a program on contention_begin keeps each thread's wait. */
  private followLockWaits(): number {
    const fd = this.map({ type: BPF_MAP_TYPE.LRU_HASH, keySize: 4, valueSize: LOCKWAIT_VALUE_SIZE, maxEntries: LOCKWAIT_ENTRIES, name: 'dt_lockwait' });
    try {
      const prog = native.progLoad({ type: BPF_PROG_TYPE.RAW_TRACEPOINT, insns: lockWaitBeginProgram(fd, 1), license: 'GPL', name: 'dt_lockwait' });
      this.fds.push(prog);
      this.progFds.push(prog);
      this.fds.push(native.rawTracepointOpen('contention_begin', prog));
    } catch (e) {
      throw new DeviceError(`lockstat: cannot follow lock:contention_begin: ${(e as Error).message}`);
    }
    return fd;
  }

  /** tcp:::receive's sockets (tcpsocks.ts): programs on TCP state changes and packets sent. */
  private followTcpSockets(): number {
    const fd = this.map({ type: BPF_MAP_TYPE.LRU_HASH, keySize: TCPSOCK_KEY_SIZE, valueSize: 8, maxEntries: TCPSOCK_ENTRIES, name: 'dt_tcpsocks' });
    const offsets = sockOffsets();
    for (const [source, event] of [['state', 'inet_sock_set_state'], ['xmit', 'net_dev_start_xmit']] as const) {
      try {
        const prog = native.progLoad({ type: BPF_PROG_TYPE.RAW_TRACEPOINT, insns: tcpSockProgram(fd, source, offsets), license: 'GPL', name: 'dt_tcpsocks' });
        this.fds.push(prog);
        this.progFds.push(prog);
        this.fds.push(native.rawTracepointOpen(event, prog));
      } catch (e) {
        throw new DeviceError(`tcp: cannot follow sockets at ${event}: ${(e as Error).message}`);
      }
    }
    return fd;
  }

  /**
   * vtimestamp (vtime.ts): each CPU's arriving thread, kept by a program on sched_switch that
   * runs from here on, whatever the activity word says.
   */
  private followSwitches(): VtimeEnv {
    const fd = this.map({ type: BPF_MAP_TYPE.ARRAY, keySize: 4, valueSize: VTIME_VALUE_SIZE, maxEntries: this.ncpu, name: 'dt_vtime' });
    try {
      const prog = native.progLoad({ type: BPF_PROG_TYPE.RAW_TRACEPOINT, insns: vtimeSwitchProgram(fd), license: 'GPL', name: 'dt_vtime' });
      this.fds.push(prog);
      this.progFds.push(prog);
      this.fds.push(native.rawTracepointOpen('sched_switch', prog));
    } catch (e) {
      throw new DeviceError(`vtimestamp: cannot follow the scheduler's switches: ${(e as Error).message}`);
    }
    return { fd, sumExecRuntime: vtimeOffsets().sumExecRuntime };
  }

  /**
   * Aggregations of one kind and key shape share a map (aggregate.ts): keyless ones an array
   * with an element each, keyed ones a hash whose key ends with the aggregation's id. One alone
   * keeps a map of its own, without the id. Those clear() or trunc() names (`switched`) have two
   * such maps behind a map of maps (agg-switch.ts), and share none with the others. Also the map
   * of their initial values and, for keyed ones, the drop counter.
   */
  private aggregationMaps(aggDescs: AggregationDescription[], switched: Set<number>): { aggregations: Map<bigint, AggregationMap>; aggInitFd: number } {
    const aggregations = new Map<bigint, AggregationMap>();
    const aggInit: Buffer[] = [];
    let initOffset = 0;
    const aggsize = this.lowerAggsize();
    const groups = new Map<string, AggregationDescription[]>();
    for (const desc of aggDescs) {
      const keyed = aggIsKeyed(desc.action, desc.keys.length);
      const shape = `${keyed}/${desc.action}/${desc.valueSize}/${keyed ? roundUp(desc.keySize, 8) : 0}${switched.has(desc.id) ? '/switched' : ''}`;
      (groups.get(shape) ?? groups.set(shape, []).get(shape)!).push(desc);
    }
    for (const members of groups.values()) {
      const first = members[0], keyed = aggIsKeyed(first.action, first.keys.length), many = members.length > 1;
      const keySize = roundUp(first.keySize, 8);
      // Too large for a per-CPU value: one value all CPUs add to (aggregate.ts).
      const oneCopy = first.valueSize > PERCPU_VALUE_MAX;
      const entries = keyed ? aggregationEntries(aggsize, keySize, first.valueSize) : 0;
      const spec = {
        type: keyed ? (oneCopy ? BPF_MAP_TYPE.HASH : BPF_MAP_TYPE.PERCPU_HASH) : (oneCopy ? BPF_MAP_TYPE.ARRAY : BPF_MAP_TYPE.PERCPU_ARRAY),
        keySize: keyed ? keySize + (many ? 8 : 0) : 4,
        valueSize: first.valueSize,
        // The entries aggsize holds a map, shared by the aggregations in it (DTrace's aggsize,
        // too, is the space of all of them); none: a map of one entry never inserted into.
        // Distributions are large, and so are maps beyond the default aggsize's: allocate their
        // entries as keys arrive, not all of them up front. Others are preallocated: an insert
        // in NMI context (profile probes) can fail to allocate.
        maxEntries: keyed ? Math.max(1, entries) : members.length,
        flags: keyed && (first.valueSize > 64 || entries > PREALLOC_ENTRIES_MAX) ? BPF_F_NO_PREALLOC : 0,
        name: many ? `dt_aggs${first.id}` : `dt_agg${first.id}`,
      };
      const fd = this.map(spec);
      let outerFd: number | undefined;
      if (switched.has(first.id)) {
        const spare = this.map(spec);
        outerFd = this.map({ type: BPF_MAP_TYPE.ARRAY_OF_MAPS, keySize: 4, valueSize: 4, maxEntries: 1, innerMapFd: fd, name: `dt_aggsw${first.id}` });
        native.mapUpdate(outerFd, u32(0), u32(fd), 0);
        this.switched.set(outerFd, new SwitchedMaps(outerFd, [fd, spare], {
          keyed, keySize: spec.keySize, valueSize: first.valueSize, action: first.action, ncpu: this.ncpu, perCpu: !oneCopy,
        }, keyed ? 0 : members.length));
      }
      members.forEach((desc, i) => {
        const shared = !many ? undefined : keyed ? { id: desc.id } : { index: i };
        const map: AggregationMap = {
          fd, keyed, keySize, valueSize: desc.valueSize, action: desc.action, initOffset,
          ...(shared ? { shared } : {}), ...(keyed && entries === 0 ? { noRoom: true as const } : {}),
          ...(oneCopy ? { oneCopy: true as const } : {}), ...(outerFd !== undefined ? { outerFd } : {}),
        };
        aggInit.push(aggInitialValue(desc.action, desc.valueSize));
        initOffset += desc.valueSize;
        aggregations.set(BigInt(desc.id), map);
        this.aggs.push({ desc, map });
      });
    }
    const initValue = Buffer.concat([...aggInit, Buffer.alloc(8)]);
    const aggInitFd = this.map({ type: BPF_MAP_TYPE.ARRAY, keySize: 4, valueSize: initValue.length, maxEntries: 1, name: 'dt_agginit' });
    native.mapUpdate(aggInitFd, u32(0), initValue, 0);
    if (aggDescs.some((d) => aggIsKeyed(d.action, d.keys.length)))
      this.aggDropsFd = this.map({ type: BPF_MAP_TYPE.PERCPU_ARRAY, keySize: 4, valueSize: 8, maxEntries: 1, name: 'dt_aggdrops' });
    return { aggregations, aggInitFd };
  }

  /**
   * Translate and load one program per probe site, except where one program serves several:
   * probes reached through one shared tracepoint (dispatch.ts: one program per set of clauses,
   * in a program array a dispatcher attached there indexes) and uprobe sites sharing a program
   * through uprobe-multi links (uprobe-share.ts). BEGIN and END wait for go() and stop(); the
   * rest wait in `loaded` for go() to attach them.
   */
  private translateProbes(byProbe: ProbeMatch['byProbe'], plansByProbe: Map<number, EcbPlan[]>, probeStrings: Map<number, ProbeStrings>, env: ProgramEnv): void {
    const dispatch = new DispatchPlan([...byProbe.values()].map((e) => e.probe), (o) => this.map(o),
      (fd, key, value) => native.mapUpdate(fd, key, value, 0));
    const sites = [...byProbe.values()].flatMap(({ probe }) => probeSites(probe));
    const multi = uprobeMultiSupported();
    const sharing = new UprobeSharing(
      multi ? sites.filter((p) => p.attach.kind === 'uprobe').map((p) => ({ probe: p, clauses: byProbe.get(p.id)!.ecbs })) : [],
      (o) => this.map(o), (fd, key, value) => native.mapUpdate(fd, key, value, 0));
    for (const probe of sites) {
      if (isErrorProbe(probe)) continue; // its clauses run in every other program (error-probe.ts)
      const plans = plansByProbe.get(probe.id)!;
      const clauses = byProbe.get(probe.id)?.ecbs ?? [];
      const values = { id: probe.id, strings: probeStrings.get(probe.id)!, epids: plans.map((p) => p.epid) };
      if (dispatch.reuse(probe, clauses, values)) continue;
      const shareUprobe = multi && probe.attach.kind === 'uprobe';
      if (shareUprobe && sharing.reuse(probe, clauses, values)) continue;
      const shared = shareUprobe ? sharing.translatorFor(probe, clauses, values.epids, env.mem, argLoader(probe))
        : dispatch.translatorFor(probe, plans.length, values.epids, env.mem, (args) => argLoader({
          id: probe.id, provider: probe.provider, module: probe.module, func: probe.func, name: probe.name, attach: probe.attach, args,
        }));
      const translator = () => new ProbeTranslator(
        { ...env, ...probeEnv(probe, values.strings), shared: shared?.shared, chainable: !shared },
        shared ? shared.loadArgs : argLoader(probe),
        probe.attach.kind !== 'dtrace',
      );
      let insns: Buffer;
      const whole = translator();
      try {
        insns = whole.translate(plans);
      } catch (e) {
        if (e instanceof TranslateError) throw new DeviceError(`${e.message} (clause for ${describe(probe)})`);
        throw e;
      }
      // A program too long for one is loaded as a chain of shorter ones (chain.ts).
      const progFd = whole.tooLong ? loadChain(plans, whole.clauseLengths, {
        translate: (ps, link) => translator().translate(ps, link),
        load: (code, ps, link) => this.load(probe, code, ps, (qs) => translator().translate(qs, link)),
        progArray: (n) => this.map({ type: BPF_MAP_TYPE.PROG_ARRAY, keySize: 4, valueSize: 4, maxEntries: n, name: 'dt_chain' }),
        setLink: (fd, i, prog) => native.mapUpdate(fd, u32(i), u32(prog), 0),
      }) : this.load(probe, insns, plans, (ps) => translator().translate(ps));
      if (shareUprobe) sharing.adopt(probe, clauses, progFd, values);
      else if (shared) dispatch.adopt(probe, clauses, progFd, values);
      else if (probe.attach.kind === 'dtrace') {
        if (probe.attach.which === 'BEGIN') this.begin.push(progFd);
        else if (probe.attach.which === 'END') this.end.push(progFd);
      } else this.loaded.push({ probe, progFd, events: [] });
    }
    for (const group of sharing.all()) this.loaded.push({ probe: group.probe, progFd: group.progFd, events: [], group });
    for (const d of dispatch.dispatchers()) {
      this.loaded.push({ probe: d.probe, progFd: this.load(d.probe, d.insns), events: [] });
    }
  }

  /**
   * As DTrace's dtrace_state_go(): every probe is attached while tracing is warming up, when
   * only BEGIN fires (every other program's prologue stops unless the activity word is ACTIVE);
   * then BEGIN runs, `afterBegin` reads its records, and tracing becomes active -- unless BEGIN
   * called exit(), which left it draining. So BEGIN's records come first, and once they are
   * printed every probe is in place.
   */
  go(afterBegin?: () => void): void {
    this.setActivity(ACTIVITY_WARMUP);
    const refused = this.attachLoaded();
    const left = this.leaveOutRefused(refused);
    this.holdSemaphores(left);
    for (const fd of this.begin) this.runOnTracedCpu(fd);
    afterBegin?.();
    this.setActivity(ACTIVITY_ACTIVE, ACTIVITY_WARMUP);
  }

  /**
   * Attach every loaded program. A probe whose tracepoint vanished is dropped from `loaded`
   * (named in `vanished`), and fails the run when nothing else is left; the uprobe sites the
   * kernel refused are returned, with how many uprobe sites there were.
   */
  private attachLoaded(): { refused: { probe: Probe; error: unknown }[]; uprobes: number } {
    const refused: { probe: Probe; error: unknown }[] = [];
    let uprobes = 0;
    const attached: LoadedProbe[] = [];
    for (const lp of this.loaded) {
      if (lp.probe.attach.kind === 'uprobe') uprobes += lp.group?.sites.length ?? 1;
      if (this.attach(lp, refused)) attached.push(lp);
    }
    if (this.vanished.length > 0 && attached.length === 0 && this.begin.length + this.end.length === 0) {
      throw new DeviceError(`failed to enable ${this.vanished.join(', ')}: ${VANISHED}`);
    }
    this.loaded = attached;
    return { refused, uprobes };
  }

  /**
   * Functions the kernel cannot probe are left out (named in `uninstrumented`), unless nothing
   * user-space is left or a description named one exactly. The probes left out are returned.
   */
  private leaveOutRefused({ refused, uprobes }: { refused: { probe: Probe; error: unknown }[]; uprobes: number }): Set<Probe> {
    if (refused.length > 0 && (refused.length === uprobes || refused.some((r) => this.exact.has(r.probe.id)))) {
      const first = refused.find((r) => this.exact.has(r.probe.id)) ?? refused[0];
      throw new DeviceError(`failed to enable ${describe(first.probe)}: ${uprobeFailure(first.probe.attach as UprobeAttach, first.error)}`);
    }
    this.uninstrumented = [...new Set(refused.map((r) => r.probe.func))];
    return new Set(refused.map((r) => r.probe));
  }

  /** The semaphores attached uprobe probes also raise: after every probe, so that one of the user's own at a hold's first site is in place first. */
  private holdSemaphores(left: Set<Probe>): void {
    for (const lp of this.loaded) {
      for (const probe of lp.group ? lp.group.sites.map((s) => s.probe) : [lp.probe]) {
        const at = probe.attach;
        if (at.kind === 'uprobe' && at.alsoRaise && !left.has(probe)) this.holdSemaphore(probe, at);
      }
    }
  }

  /** Set the activity word (the globals' first u32) to `to`, only when it is `from` if given. */
  private setActivity(to: number, from?: number): void {
    if (!this.globals) return;
    const value = Buffer.alloc(this.globals.size);
    if (!native.mapLookup(this.globals.fd, u32(0), value)) return;
    if (from !== undefined && value.readUInt32LE(0) !== from) return;
    value.writeUInt32LE(to, 0);
    native.mapUpdate(this.globals.fd, u32(0), value, 0);
  }

  stop(): void {
    for (const lp of this.loaded) {
      for (const fd of lp.events) this.closeFd(fd);
      lp.events = [];
    }
    for (const fds of this.holds.values()) for (const fd of fds) this.closeFd(fd);
    this.holds.clear();
    for (const fd of this.end) this.runOnTracedCpu(fd);
    this.stopped = true;
  }

  /**
   * The kernel tells a perf buffer's lost records only in front of the next record it writes
   * there, so the drops of the last interval -- tracing stopped with a full buffer -- would never
   * be told. Once stopped and drained, write one marker record on every traced CPU (a program run
   * there) and read what comes before it; the marker itself is left out.
   */
  private flushLost(): CpuBuffer[] {
    if (this.eventsFd === undefined || this.buffers.length === 0) return [];
    const a = new BpfAsm();
    a.mov(R6, R1);
    a.st(8, FP, -8, -1); // the marker's header: epid FLUSH_EPID
    a.mov(R1, R6);
    a.ldMap(R2, this.eventsFd);
    a.ld64(R3, 0xffffffffn); // BPF_F_CURRENT_CPU
    a.mov(R4, FP);
    a.aluImm(ALU.ADD, R4, -8);
    a.movImm(R5, 8);
    a.call(HELPER.perf_event_output);
    a.movImm(R0, 0);
    a.exit();
    const before = this.read();
    let fd: number;
    try {
      fd = native.progLoad({ type: BPF_PROG_TYPE.RAW_TRACEPOINT, insns: a.finish(), license: 'GPL', name: 'dt_flush' });
    } catch {
      return before; // a kernel that refuses it: the drain as before, the last drops untold
    }
    try {
      for (const { cpu } of this.buffers) native.progTestRun(fd, Buffer.alloc(8), BPF_F_TEST_RUN_ON_CPU, cpu);
      const after = this.read();
      return before.map((b, i) => ({
        cpu: b.cpu,
        records: [...b.records, ...after[i]!.records].filter((r) => r.length < 4 || r.readUInt32LE(0) !== FLUSH_EPID),
        lost: b.lost + after[i]!.lost,
      }));
    } catch {
      return before; // a CPU the program could not run on: its last drops untold
    } finally {
      native.close(fd);
    }
  }

  /** Run BEGIN or END here, or under -x cpu on that CPU (as DTrace for Linux runs them there). */
  private runOnTracedCpu(fd: number): void {
    const cpu = this.opts.cpu;
    if (cpu === undefined) native.progTestRun(fd, Buffer.alloc(8), 0);
    else native.progTestRun(fd, Buffer.alloc(8), BPF_F_TEST_RUN_ON_CPU, cpu);
  }

  /** The CPUs whose buffers are read and whose timers fire profile probes: -x cpu's, or all online. */
  private get tracedCpus(): number[] {
    return this.opts.cpu === undefined ? this.onlineCpus : [this.opts.cpu];
  }

  async wait(ms: number): Promise<void> {
    if (this.buffers.length === 0) return new Promise((r) => setTimeout(r, ms));
    // The buffers wake us only when a quarter full (openBuffers): a lone record -- exit()'s, a
    // rare printf -- is found by waking at least every DRAIN_POLL_MS.
    await native.waitReadable(this.buffers.map((b) => b.fd), Math.min(ms, DRAIN_POLL_MS));
  }

  drain(): CpuBuffer[] {
    if (this.stopped && !this.flushed) {
      this.flushed = true;
      return this.flushLost();
    }
    return this.read();
  }

  private read(): CpuBuffer[] {
    return this.buffers.map(({ cpu, handle }) => {
      const { samples, lost } = native.perfBufferRead(handle);
      return { cpu, records: samples, lost };
    });
  }

  aggregationSnapshot(): AggregationEntry[] {
    const out: AggregationEntry[] = [];
    const ncpu = this.ncpu;
    const mapsRead = new Set<number>();
    for (const { desc, map } of this.aggs) {
      const stride = roundUp(map.valueSize, 8);
      const value = Buffer.alloc(stride * ncpu);
      // A value kept once for all CPUs (oneCopy) is read into CPU 0's place; the rest stay zero.
      const split = (v: Buffer<ArrayBufferLike> = value) => Array.from({ length: ncpu }, (_, c) => Buffer.from(v.subarray(c * stride, c * stride + map.valueSize)));
      // A shared hash or a switched map is read once, for all its aggregations: the id ends a
      // shared hash's keys, and a shared array's element is the aggregation's.
      const entry = (key: Buffer, perCpu: Buffer[]): AggregationEntry => map.shared && 'id' in map.shared
        ? { id: Number(key.readBigUInt64LE(map.keySize)), key: key.subarray(0, map.keySize), perCpu }
        : { id: desc.id, key, perCpu };
      if (map.outerFd !== undefined) {
        if (mapsRead.has(map.outerFd)) continue;
        mapsRead.add(map.outerFd);
        const sw = this.switched.get(map.outerFd)!;
        sw.switch();
        if (map.keyed) for (const e of sw.entries()) out.push(entry(e.key, [e.value]));
        else {
          for (const a of this.aggs.filter((x) => x.map.outerFd === map.outerFd))
            out.push({ id: a.desc.id, key: Buffer.alloc(0), perCpu: [sw.value(this.fullAggKey(a.map, a.desc.id, Buffer.alloc(0)))] });
        }
        continue;
      }
      if (!map.keyed) {
        const index = u32(map.shared && 'index' in map.shared ? map.shared.index : 0);
        if (native.mapLookup(map.fd, index, value)) out.push({ id: desc.id, key: Buffer.alloc(0), perCpu: split() });
        continue;
      }
      if (map.shared) {
        if (mapsRead.has(map.fd)) continue;
        mapsRead.add(map.fd);
      }
      for (const key of mapKeys(map.fd, this.fullKeySize(map))) {
        if (native.mapLookup(map.fd, key, value)) out.push(entry(key, split()));
      }
    }
    return out;
  }

  /** Dynamic variable drops (stores that found the variable space full) since the last call. */
  dynamicVariableDrops(): number {
    if (this.dvarDropsFd === undefined || this.closed) return 0;
    const ncpu = this.ncpu;
    const value = Buffer.alloc(8 * ncpu);
    if (!native.mapLookup(this.dvarDropsFd, u32(0), value)) return 0;
    let total = 0;
    for (let c = 0; c < ncpu; c++) total += Number(value.readBigUInt64LE(c * 8));
    const fresh = total - this.dvarDropsSeen;
    this.dvarDropsSeen = total;
    return fresh;
  }

  /**
   * Firings of our programs the kernel skipped since the last call (bpf_prog_info's
   * recursion_misses): a tracepoint or kprobe program does not run while another tracing program
   * holds that CPU's bpf_prog_active, a raw tracepoint program not inside itself. (A perf-event
   * program, profile or tick, skipped for bpf_prog_active is not counted: our syscall probes are
   * raw tracepoint programs so as not to make it skip.)
   */
  recursionMisses(): number {
    if (this.closed) return 0;
    let total = 0;
    for (const fd of this.progFds) {
      try { total += native.progRecursionMisses(fd); } catch { /* closed meanwhile */ }
    }
    const fresh = total - this.missesSeen;
    this.missesSeen = Math.max(total, this.missesSeen);
    return Math.max(0, fresh);
  }

  /** A committed or discarded speculation the consumer is done with (speculation.ts). */
  cleanSpeculation(id: number, generation: number): void {
    if (!this.closed) this.spec?.clean(id, generation);
  }

  /** speculation() calls that failed since the last call, busy or unavailable. */
  speculationFailures(): { busy: number; unavailable: number } {
    return this.spec && !this.closed ? this.spec.failures() : { busy: 0, unavailable: 0 };
  }

  /** Aggregation drops so far (failed inserts into full keyed maps), per CPU. */
  aggregationDrops(): { cpu: number; drops: number }[] {
    if (this.aggDropsFd === undefined) return [];
    const ncpu = this.ncpu;
    const value = Buffer.alloc(8 * ncpu);
    if (!native.mapLookup(this.aggDropsFd, u32(0), value)) return [];
    return Array.from({ length: ncpu }, (_, cpu) => ({ cpu, drops: Number(value.readBigUInt64LE(cpu * 8)) }));
  }

  /** clear(): the entries of aggregation `id`, as read, read zero; keys stay (agg-switch.ts). */
  clearAggregation(id: number, read: AggregationEntry[]): void {
    const agg = this.aggs.find((a) => a.desc.id === id);
    const sw = agg?.map.outerFd !== undefined ? this.switched.get(agg.map.outerFd) : undefined;
    if (!agg || !sw) return;
    for (const e of read) if (e.id === id) sw.clear(this.fullAggKey(agg.map, id, e.key), e.perCpu);
  }

  /** trunc(): remove these entries, as read, of aggregation `id` (a keyless one reads zero). */
  removeAggregationKeys(id: number, read: AggregationEntry[]): void {
    const agg = this.aggs.find((a) => a.desc.id === id);
    const sw = agg?.map.outerFd !== undefined ? this.switched.get(agg.map.outerFd) : undefined;
    if (!agg || !sw) return;
    for (const e of read) if (e.id === id) sw.remove(this.fullAggKey(agg.map, id, e.key), e.perCpu);
  }

  /** An aggregation's key in its map: shared hashes end it with the aggregation's id. */
  private fullAggKey(map: AggregationMap, id: number, key: Buffer): Buffer {
    if (!map.keyed) return u32(map.shared && 'index' in map.shared ? map.shared.index : 0);
    if (!map.shared) return key;
    const suffix = Buffer.alloc(8);
    suffix.writeBigUInt64LE(BigInt(id));
    return Buffer.concat([key, suffix]);
  }

  /** The size of an aggregation's keys in its map: a shared hash's end with the id. */
  private fullKeySize(map: AggregationMap): number {
    return map.keySize + (map.shared && 'id' in map.shared ? 8 : 0);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const b of this.buffers) native.perfBufferClose(b.handle);
    for (const fd of this.fds.splice(0)) {
      try { native.close(fd); } catch { /* already closed */ }
    }
  }

  // ------------------------------------------------------------------ helpers

  private map(o: { type: number; keySize: number; valueSize: number; maxEntries: number; name: string; flags?: number; innerMapFd?: number }): number {
    const fd = native.mapCreate(o);
    this.fds.push(fd);
    return fd;
  }

  private closeFd(fd: number): void {
    const i = this.fds.indexOf(fd);
    if (i >= 0) this.fds.splice(i, 1);
    const p = this.progFds.indexOf(fd);
    if (p >= 0) this.progFds.splice(p, 1);
    try { native.close(fd); } catch { /* ignore */ }
  }

  /**
   * aggsize, no more than AGGSIZE_MAX: a larger one is lowered by halves under bufresize=auto, as
   * DTrace lowers what it cannot allocate (dtrace(1) then says "aggregation size lowered to
   * ..."); under bufresize=manual it fails the enabling.
   */
  private lowerAggsize(): number {
    let aggsize = this.opts.aggsize;
    if (aggsize <= AGGSIZE_MAX) return aggsize;
    if (this.opts.bufresize === 'manual') throw new DeviceError('aggsize: Cannot allocate memory');
    while (aggsize > AGGSIZE_MAX) aggsize = Math.floor(aggsize / 2);
    this.aggsizeLowered = aggsize;
    return aggsize;
  }

  private openBuffers(eventsFd: number): void {
    // A perf ring is a power of two pages (a size between two is raised to the next, ringSize).
    // Under bufresize=auto a size larger than BUFSIZE_MAX, or than the kernel can give, is
    // lowered by halves of itself, as DTrace's kernel lowers it (dtrace(1) then says "buffer size
    // lowered to ..."); under bufresize=manual it fails the enabling.
    const pageSize = native.pageSize();
    const manual = this.opts.bufresize === 'manual';
    let size = this.opts.bufsize;
    if (LinuxDevice.ringSize(size) > BUFSIZE_MAX && manual) throw new DeviceError('bufsize: Cannot allocate memory');
    while (LinuxDevice.ringSize(size) > BUFSIZE_MAX) size = Math.floor(size / 2);
    for (const cpu of this.tracedCpus) {
      // Woken by a quarter of the ring, not by every record: a wake-up per event limited a
      // printf storm to what the consumer could be woken for (issue 22).
      const fd = native.perfEventOpen({
        type: PERF_TYPE_SOFTWARE, config: PERF_COUNT_SW_BPF_OUTPUT, sampleType: PERF_SAMPLE_RAW,
        wakeupWatermark: Math.max(pageSize, LinuxDevice.ringSize(size) / 4), pid: -1, cpu,
      });
      this.fds.push(fd);
      native.mapUpdate(eventsFd, u32(cpu), u32(fd), 0);
      for (;;) {
        const pages = LinuxDevice.ringSize(size) / pageSize;
        try {
          const handle = native.perfBufferOpen(fd, pages);
          this.buffers.push({ cpu, fd, handle });
          break;
        } catch (e) {
          if ((e as { code?: string }).code !== 'ENOMEM' || pages === 1) throw e;
          if (manual) throw new DeviceError('bufsize: Cannot allocate memory');
          size = Math.floor(size / 2);
        }
      }
    }
    if (size < this.opts.bufsize) this.bufsizeLowered = size;
  }

  private load(probe: Probe, insns: Buffer, plans?: EcbPlan[], translate?: (plans: EcbPlan[]) => Buffer): number {
    const type = probe.attach.kind === 'uprobe' ? BPF_PROG_TYPE.KPROBE
      : probe.attach.kind === 'tracepoint' ? BPF_PROG_TYPE.TRACEPOINT
      : probe.attach.kind === 'profile' ? BPF_PROG_TYPE.PERF_EVENT : BPF_PROG_TYPE.RAW_TRACEPOINT;
    // Uprobes attach through uprobe-multi links where the kernel has them (see attach()).
    const multi = probe.attach.kind === 'uprobe' && uprobeMultiSupported() ? { expectedAttachType: BPF_TRACE_UPROBE_MULTI } : {};
    this.settings.listing?.({
      probe: describe(probe),
      clauses: (plans ?? []).map((p) => ({ description: describeDesc(p.desc.probe), index: Number(p.desc.uarg) })),
      insns,
    });
    const attempt: LoadAttempt = (code, withLog, ps) => {
      try {
        const fd = native.progLoad({ type, insns: sabotageForTest(code, ps, this.settings.debug?.rejectClause), license: 'GPL', name: progName(probe), logLevel: withLog ? 1 : 0, ...multi });
        native.close(fd);
        return { ok: true };
      } catch (e) {
        return { ok: false, ...(e as { code?: string; log?: string }) };
      }
    };
    try {
      const code = plans ? sabotageForTest(insns, plans, this.settings.debug?.rejectClause) : insns;
      const fd = this.settings.bpflog ? this.loadLogged(type, code, probe, multi, this.settings.bpflog)
        : native.progLoad({ type, insns: code, license: 'GPL', name: progName(probe), logLevel: this.settings.verbose ? 1 : 0, ...multi });
      this.fds.push(fd);
      this.progFds.push(fd);
      // Each program's size and the verifier's processed instructions (DTRACE_BPF_STATS=1;
      // scripts/bench reports them beside the load time).
      if (this.settings.debug?.stats)
        process.stderr.write(`dtrace: BPF program for '${describe(probe)}': ${insns.length / 8} instructions, verifier processed ${native.progVerifiedInsns(fd)}\n`);
      return fd;
    } catch (e) {
      const err = e as Error & { log?: string; code?: string };
      if (plans && translate) {
        const r = explainRejection({ probe: describe(probe), code: err.code, log: err.log, insns, plans, translate, load: attempt });
        throw new DeviceError(r.message, r.log);
      }
      throw new DeviceError(
        `failed to enable ${describe(probe)}: the BPF verifier rejected the program (${err.code ?? err.message})`,
        err.log,
      );
    }
  }

  /**
   * A load whose verifier log is printed (-x bpflog). A log larger than bpflogsize is not printed:
   * DTrace for Linux's notice says so, and the program is loaded again without one.
   */
  private loadLogged(type: number, insns: Buffer, probe: Probe, multi: object, bpflog: BpfLog): number {
    const base = { type, insns, license: 'GPL', name: progName(probe), ...multi };
    try {
      return native.progLoad({ ...base, logLevel: 2, logSize: bpflog.size, onLog: bpflog.log });
    } catch (e) {
      if (!isNativeError(e, 'ENOSPC')) throw e;
      bpflog.notice(`BPF verifier log is incomplete and is not reported.\nSet DTrace option 'bpflogsize' to some greater size for more output.\n(Current size is ${bpflog.size}.)`);
      return native.progLoad({ ...base, logLevel: 0 });
    }
  }

  /**
   * Attach one probe; false when its tracepoint no longer exists (see `vanished`). Uprobe sites
   * the kernel refuses go to `refused`.
   */
  private attach(lp: LoadedProbe, refused: { probe: Probe; error: unknown }[]): boolean {
    const at = lp.probe.attach;
    if (lp.group) {
      let r;
      try {
        r = attachUprobeMultiSkipping(lp.progFd, lp.group.sites);
      } catch (e) {
        throw new DeviceError(`failed to enable ${describe(lp.probe)}: ${uprobeFailure(at as UprobeAttach, e)}`);
      }
      this.fds.push(...r.links);
      lp.events.push(...r.links);
      for (const x of r.refused) refused.push({ probe: (x.site as UprobeGroup['sites'][number]).probe, error: x.error });
      return true;
    }
    const open = (o: Parameters<typeof native.perfEventOpen>[0]) => {
      const fd = native.perfEventOpen({ ...o, disabled: true });
      this.fds.push(fd);
      lp.events.push(fd);
      native.perfEventSetBpf(fd, lp.progFd);
      native.perfEventEnable(fd);
    };
    if (at.kind === 'tracepoint') {
      // The program joins the tracepoint's own program list, so it runs on every CPU: one event.
      try {
        if (this.settings.debug?.vanish === `${at.group}/${at.event}`) throw new Error('removed (test)');
        open({ type: PERF_TYPE_TRACEPOINT, config: eventId(at.group, at.event), pid: -1, cpu: this.onlineCpus[0], samplePeriod: 1 });
      } catch (e) {
        if (this.settings.debug?.vanish !== `${at.group}/${at.event}` && eventExists(at.group, at.event)) {
          throw new DeviceError(`failed to enable ${describe(lp.probe)}: ${(e as Error).message}`);
        }
        this.vanished.push(describe(lp.probe));
        return false;
      }
    } else if (at.kind === 'uprobe' && uprobeMultiSupported()) {
      // A link detaches in one grace period; a uprobe perf event's close waits for several.
      try {
        for (const fd of attachUprobeMulti(lp.progFd, [{ at }])) {
          this.fds.push(fd);
          lp.events.push(fd);
        }
      } catch (e) {
        throw new DeviceError(`failed to enable ${describe(lp.probe)}: ${uprobeFailure(at, e)}`);
      }
    } else if (at.kind === 'uprobe') {
      for (const o of uprobeEvents(at, this.onlineCpus)) {
        try {
          open(o);
        } catch (e) {
          const code = (e as { code?: string }).code;
          if (code === 'E524' || code === 'ENOTSUPP') {
            refused.push({ probe: lp.probe, error: e });
            break;
          }
          throw new DeviceError(`failed to enable ${describe(lp.probe)}: ${uprobeFailure(at, e)}`);
        }
      }
    } else if (at.kind === 'rawTracepoint') {
      let fd: number;
      try {
        fd = native.rawTracepointOpen(at.event, lp.progFd);
      } catch (e) {
        throw new DeviceError(`failed to enable ${describe(lp.probe)}: ${(e as Error).message}`);
      }
      this.fds.push(fd);
      lp.events.push(fd);
    } else if (at.kind === 'profile') {
      const cpus = at.perCpu ? this.tracedCpus : this.tracedCpus.slice(0, 1);
      const c = at.counter;
      const mode = c ? { excludeUser: c.mode === 'kernel', excludeKernel: c.mode === 'user' } : {};
      for (const cpu of cpus) {
        open({ type: c?.type ?? PERF_TYPE_SOFTWARE, config: c?.config ?? PERF_COUNT_SW_CPU_CLOCK, samplePeriod: at.periodNs, pid: -1, cpu, ...mode });
      }
    }
    return true;
  }

  /**
   * Raise the semaphore a uprobe probe also needs (its alsoRaise) while tracing lasts: a uprobe
   * with that reference counter and a program that does nothing, at the first site the kernel
   * takes. Kernel-managed like every uprobe: the count drops when the fd closes, however dtrace ends.
   */
  private holdSemaphore(probe: Probe, at: Extract<Probe['attach'], { kind: 'uprobe' }>): void {
    const hold = at.alsoRaise!;
    const key = `${at.pid ?? ''}:${at.path}:${hold.refCtrOffset}`;
    if (this.holds.has(key)) return;
    if (this.nopProg === undefined) {
      this.nopProg = loadNopProgram();
      this.fds.push(this.nopProg);
    }
    let failure: unknown;
    for (const offset of hold.sites) {
      const site = { kind: 'uprobe' as const, path: at.path, offset, retprobe: false, pid: at.pid, refCtrOffset: hold.refCtrOffset };
      const fds: number[] = [];
      try {
        if (uprobeMultiSupported()) fds.push(...attachUprobeMulti(this.nopProg, [{ at: site }]));
        else {
          for (const o of uprobeEvents(site, this.onlineCpus)) {
            const fd = native.perfEventOpen({ ...o, disabled: true });
            fds.push(fd);
            native.perfEventSetBpf(fd, this.nopProg);
            native.perfEventEnable(fd);
          }
        }
      } catch (e) {
        // Another uprobe at this offset with another reference counter, or an instruction the
        // kernel cannot probe: try the next site.
        for (const fd of fds) native.close(fd);
        failure = e;
        continue;
      }
      this.fds.push(...fds);
      this.holds.set(key, fds);
      return;
    }
    throw new DeviceError(`failed to enable ${describe(probe)}: ${uprobeFailure({ ...at, offset: hold.sites[hold.sites.length - 1] }, failure)}`);
  }
}

type UprobeAttach = Extract<Probe['attach'], { kind: 'uprobe' }>;

/** The maps every program of the enabling shares (createMaps()). */
type ProgramMaps = Pick<TranslateEnv, 'memFd' | 'globalsFd' | 'strtabFd' | 'eventsFd' | 'cpuinfoFd' | 'vtime' | 'aggregations' | 'aggInitFd' | 'vars'>;

/** What a probe's translator is told about the parts of its environment that are the probe's own. */
type ProbeEnvKeys = 'probeStrings' | 'providerPid' | 'probeId' | 'exitStopsClauses' | 'errno' | 'shared' | 'contextTask' | 'kernelStackSkip' | 'stackMachinery' | 'ctxRegs' | 'memElement';

/** The translator's environment common to every probe of the enabling. */
type ProgramEnv = Omit<TranslateEnv, ProbeEnvKeys>;

function probeEnv(probe: Probe, probeStrings: ProbeStrings): Omit<Pick<TranslateEnv, ProbeEnvKeys>, 'shared'> {
  return {
    probeStrings, providerPid: probe.perProcess !== undefined, probeId: probe.id,
    exitStopsClauses: probe.attach.kind !== 'dtrace' || probe.name === 'BEGIN',
    errno: probe.errno,
    contextTask: probe.attach.kind === 'rawTracepoint' && probe.attach.taskArg !== undefined
      ? { arg: probe.attach.taskArg, fields: taskFields() } : undefined,
    // A raw tracepoint program runs from bpf_trace_runN, called by the traced function. BEGIN,
    // END and ERROR have no kernel code path of their own: DTrace shows no stack (NO_KERNEL_STACK).
    kernelStackSkip: probe.attach.kind === 'rawTracepoint' ? 2 : probe.attach.kind === 'dtrace' ? NO_KERNEL_STACK : 0,
    stackMachinery: probe.attach.kind === 'rawTracepoint' ? tracepointGlue(probe.attach.event) : undefined,
    ctxRegs: probe.attach.kind === 'profile',
    memElement: interrupts(probe) ? 1 : 0,
  };
}

/** The code of a raw tracepoint's glue that may lie between it and its program (stack.ts KernelSkip), from kallsyms when a clause needs it. */
function tracepointGlue(event: string): () => [bigint, bigint][] {
  return () => [`__bpf_trace_${event}`, `__traceiter_${event}`]
    .map((name) => symbolizer().kernel.extent(name)).filter((r): r is [bigint, bigint] => r !== null);
}

/** A perf-event program, run from an interrupt inside whatever ran on its CPU (TranslateEnv.memFd). */
function interrupts(probe: Probe): boolean {
  return probe.attach.kind === 'profile';
}

/** Does some DIF object read ppid or call progenyof() (which need task_struct's offsets)? */
function needsTask(program: Program): boolean {
  return programDifos(program).some((d) => d.vartab.some((v) => v.id === D.DIF_VAR_PPID) ||
    d.insns.some((i) => i >>> 24 === D.DIF_OP_CALL && ((i >>> 8) & 0xffff) === D.DIF_SUBR_PROGENYOF));
}

/** The longest the trace loop sleeps with records possibly waiting below the buffers' watermark. */
const DRAIN_POLL_MS = 10;


const VANISHED = 'its tracepoint was removed after the probe was matched (another tool deleted the event)';

function describe(p: Probe): string {
  return `${p.provider}:${p.module}:${p.func}:${p.name}`;
}

/** A clause's probe description as the program wrote it. */
function describeDesc(d: ProbeDescription): string {
  return `${d.provider}:${d.module}:${d.function}:${d.name}`;
}

function progName(p: Probe): string {
  return `dt_${p.name}`.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 15);
}

/** A probe, then a copy of it for each further place it fires (USDT sites), each its own program. */
function probeSites(probe: Probe): Probe[] {
  return [probe, ...(probe.sites ?? []).map((s) => ({ ...probe, attach: s.attach, args: s.args, sites: undefined }))];
}

/** The provider's part of the prologue: fill mem.args[] from the probe's context (r9). */
function argLoader(probe: Probe) {
  return (a: BpfAsm, mem: MemLayout) => {
    if (probe.attach.kind === 'uprobe' && probe.attach.pid !== undefined) emitPidFilter(a, probe.attach.pid);
    emitGuard(a, guardsOf(probe, false), mem.args);
    for (let i = 0; i < 10; i++) a.st(8, R8, mem.args + 8 * i, 0);
    for (const arg of probe.args) {
      const src = arg.from;
      if (arg.index > 9) continue;
      if (emitTracepointArg(a, src, mem.args + 8 * arg.index, mem)) continue;
      if (src.kind === 'field') {
        const size = src.size as 1 | 2 | 4 | 8;
        a.ldx(size, R0, R9, src.offset);
        if (src.signed && size < 8) a.movsx(R0, R0, (size * 8) as 8 | 16 | 32);
        a.stx(8, R8, mem.args + 8 * arg.index, R0);
      } else if (isUserArg(src)) {
        emitUserArg(a, mem, arg.index, src);
      } else if (src.kind === 'pc') {
        // bpf_perf_event_data: pt_regs first; ip at 128, cs at 136 on x86_64.
        a.ldx(8, R0, R9, 128);
        a.ldx(8, R1, R9, 136);
        a.aluImm(ALU.AND, R1, 3);
        const skip = a.label('pc.skip');
        // kernel PC when cs&3 == 0, user PC otherwise
        if (src.mode === 'kernel') a.jmpImm(0x50 /* JNE */, R1, 0, skip);
        else a.jmpImm(0x10 /* JEQ */, R1, 0, skip);
        a.stx(8, R8, mem.args + 8 * arg.index, R0);
        a.place(skip);
      }
    }
    emitGuard(a, guardsOf(probe, true), mem.args);
  };
}
