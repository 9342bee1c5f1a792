// The Linux device: DOF in, eBPF programs attached to the real kernel, records out.
//
// enable() decodes the DOF, matches each ECB description against the provider registry, lays out
// records (as DTrace's kernel does in dtrace_ecb_resize), creates the maps, translates each probe's
// ECBs into one BPF program and loads it. go() fires BEGIN, then attaches the rest; stop() detaches
// everything, then fires END. Every kernel object is an fd owned by this process, so nothing
// outlives it, even under SIGKILL.

import { readFileSync } from 'node:fs';
import * as D from '../../dif/constants.js';
import { readDof } from '../../dof/reader.js';
import type { ActionDescription, Program } from '../../dof/program.js';
import type { Difo } from '../../dif/difo.js';
import type { Probe } from '../../providers/provider.js';
import { ProbeRegistry } from '../../providers/registry.js';
import { VTIME_VALUE_SIZE, type VtimeEnv, vtimeOffsets, vtimeSwitchProgram } from './vtime.js';
import { eventExists, eventId } from '../../providers/tracefs.js';
import { BPF_F_TEST_RUN_ON_CPU, native } from '../native.js';
import { numericOption, optionValue, tracedCpu } from '../../options.js';
import type {
  AggregationDescription, AggregationEntry, CpuBuffer, Device, EnableResult, EnabledProbe,
  RecordDescription,
} from '../device.js';
import { FLUSH_EPID, RECORD_HEADER_SIZE } from '../../abi/records.js';
import { ALU, BPF_MAP_TYPE, BPF_PROG_TYPE, BpfAsm, HELPER, R0, R1, R2, R3, R4, R5, R6, R8, R9, FP } from './bpf-asm.js';
import { allocaSites, poolSlots, slotSize } from './tstrings.js';
import { type ArgMem, emitGuard, emitTracepointArg, guardsOf } from './tracepoint-args.js';
import {
  type AggregationMap, type EcbPlan, type GlobalVar, type MemLayout, ProbeTranslator, TranslateError, isAggregation,
  isBareVariable, roundUp,
} from './translate.js';
import { taskFields, taskOffsets } from './kernel-types.js';
import { planVariables } from './variables.js';
import { aggInitialValue, aggIsKeyed, aggValueSize, isAggIncrement } from './aggregate.js';
import { UprobeSharing, type UprobeGroup } from './uprobe-share.js';
import { isGlob } from '../../providers/glob.js';
import { attachUprobeMulti, attachUprobeMultiSkipping, BPF_TRACE_UPROBE_MULTI, emitPidFilter, emitUserArg, isUserArg, loadNopProgram, uprobeEvents, uprobeFailure, uprobeMultiSupported } from './uprobe.js';
import { DispatchPlan, sharedInfoWords } from './dispatch.js';
import { ERROR_AREA_SIZE, findErrorProbe, isErrorProbe } from './error-probe.js';
import { type LoadAttempt, explainRejection, sabotageForTest } from './rejection.js';
import { SpeculationMaps, usesSpeculations } from './speculation.js';
import { STACK_DEPTH_FRAMES, stackRecord } from './stack.js';
import { cpuinfoTable, usesCpuinfo } from './cpuinfo.js';

const PERF_TYPE_SOFTWARE = 1;
const PERF_TYPE_TRACEPOINT = 2;
const PERF_COUNT_SW_CPU_CLOCK = 0;
const PERF_COUNT_SW_BPF_OUTPUT = 10;
const PERF_SAMPLE_RAW = 1 << 10;
const PERCPU_VALUE_MAX = 32768;
// The tracing activity word's values (the translator's prologue runs a probe only when ACTIVE).
const ACTIVITY_ACTIVE = 0;
const ACTIVITY_WARMUP = 2; // 1 is DRAINING, set by exit()
const MAX_RING_PAGES = 1 << 20; // the most pages native/perf.cc maps for one ring
const BPF_F_NO_PREALLOC = 1; // PCPU_MIN_UNIT_SIZE: the largest per-CPU map value

/** The tracing options the device takes from the DOF's OPTDESC (see tracingOptions()). */
interface TracingOptions {
  strsize: number;
  bufsize: number; // bytes per CPU
  /** -x bufresize: auto (default) lowers a bufsize the kernel cannot give; manual fails. */
  bufresize: 'auto' | 'manual';
  aggsize: number; // entries per keyed aggregation
  dynvarsize: number; // bytes of dynamic variable space (thread-locals, associative arrays)
  nspec: number; // speculations
  specsize: number; // bytes of each speculation per CPU
  /** -x scratchsize: bytes of DTrace's scratch space (alloca(), copyinto(), bcopy()) per clause; else what its alloca() calls take. */
  scratchsize?: number;
  /** -x cpu: probes fire and record only on this CPU, whose buffer alone is read; BEGIN and END run there. */
  cpu?: number;
}

/** What the device is told besides the DOF. */
export interface LinuxDeviceOptions {
  verbose: boolean; // the verifier's log on errors (-v, -x debug, -x bpflog)
  /** RFD 2: the instance this device traces, probeinstance's value ('host' unless an agent names it). */
  instance?: string;
  debug?: DeviceDebug;
}

/** Developers' switches: dtrace(1) sets them from DTRACE_DEBUG_BPF, DTRACE_BPF_NOOPT, DTRACE_BPF_STATS, DTRACE_TEST_REJECT_CLAUSE and DTRACE_TEST_VANISH. */
export interface DeviceDebug {
  /** Print each BPF program as it is translated. */
  printPrograms?: boolean;
  /** No register allocation, fused comparisons or peephole passes. */
  noOptimize?: boolean;
  /** Print each program's size and the verifier's processed-instruction count. */
  stats?: boolean;
  /** Make clause N's program unverifiable (tests of the rejection message). */
  rejectClause?: number;
  /** Treat tracepoint GROUP/EVENT as removed by another tool after matching (tests of the message). */
  vanish?: string;
}

/**
 * The tracing options of a program, as its DOF carries them (-x and pragmas alike), with DTrace's
 * defaults from src/options.ts.
 */
function tracingOptions(options: ReadonlyMap<string, string>): TracingOptions {
  const bufsize = numericOption(options, 'bufsize');
  return {
    strsize: numericOption(options, 'strsize'),
    // Under fill and ring the consumer keeps bufsize bytes a CPU; the kernel's buffers carry the
    // records to it and must not lose them first.
    bufsize: optionValue(options, 'bufpolicy') === 'switch' ? bufsize : Math.max(bufsize, numericOption(new Map(), 'bufsize')),
    bufresize: optionValue(options, 'bufresize') === 'manual' ? 'manual' : 'auto',
    // aggsize is bytes; a keyed aggregation's hash map holds entries of about 64 bytes.
    aggsize: Math.max(1024, Math.floor(numericOption(options, 'aggsize') / 64)),
    dynvarsize: numericOption(options, 'dynvarsize'),
    nspec: numericOption(options, 'nspec'),
    specsize: numericOption(options, 'specsize'),
    scratchsize: options.has('scratchsize') ? numericOption(options, 'scratchsize') : undefined,
    cpu: tracedCpu(options),
  };
}

export class DeviceError extends Error {
  constructor(message: string, readonly log?: string) {
    super(message);
  }
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
  private buffers: { cpu: number; fd: number; handle: number }[] = [];
  /** The bytes each CPU's buffer got when the kernel could not give bufsize (bufresize=auto). */
  bufsizeLowered?: number;
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
  /** Per-CPU map values hold one slot for each possible CPU, as the kernel counts them. */
  private ncpu = native.possibleCpus();
  private onlineCpus = cpuList('/sys/devices/system/cpu/online');
  private closed = false;
  /** Semaphores held up for probes that need them (SemaphoreHold), by process, file and offset. */
  private holds = new Map<string, number[]>();
  private nopProg: number | undefined;

  /** The program's tracing options, known once enable() has read its DOF. */
  private opts: TracingOptions = tracingOptions(new Map());

  constructor(private registry: ProbeRegistry, private settings: LinuxDeviceOptions) {}

  enable(dof: Buffer): EnableResult {
    const program = readDof(dof);
    this.opts = tracingOptions(program.options);
    const { strsize } = this.opts;
    // Match every ECB description.
    const matched: number[] = [];
    const byProbe = new Map<number, { probe: Probe; ecbs: number[] }>();
    program.ecbs.forEach((ecb, i) => {
      const probes = this.registry.match(ecb.probe);
      matched.push(probes.length);
      // A probe a description names exactly must be placed; one a glob matched may be left out.
      const d = ecb.probe;
      if (d.function !== '' && d.name !== '' && !isGlob(d.function) && !isGlob(d.name)) for (const p of probes) this.exact.add(p.id);
      for (const p of probes) {
        let e = byProbe.get(p.id);
        if (!e) byProbe.set(p.id, (e = { probe: p, ecbs: [] }));
        e.ecbs.push(i);
      }
    });

    // Record layouts, per ECB description (the same for every probe it enables).
    const execnameKeys = execnameKeyPositions(program);
    const layouts = program.ecbs.map((ecb, i) => layoutEcb(program, i, strsize, execnameKeys));
    const aggDescs = collectAggregations(program, layouts);

    // String table: every DIFO's strings and every enabled probe's names.
    const strtab = new StringTable();
    const difoStrtab = new Map<Difo, number>();
    for (const ecb of program.ecbs) {
      for (const d of [ecb.predicate, ...ecb.actions.map((a) => a.difo)]) {
        if (d && !difoStrtab.has(d)) difoStrtab.set(d, strtab.addBlock(d.strtab));
      }
    }
    const instanceString = strtab.add(this.settings.instance ?? 'host');
    const probeStrings = new Map<number, { prov: number; mod: number; func: number; name: number }>();
    for (const { probe } of byProbe.values()) {
      probeStrings.set(probe.id, {
        prov: strtab.add(probe.provider), mod: strtab.add(probe.module),
        func: strtab.add(probe.func), name: strtab.add(probe.name),
      });
    }

    // Globals: one array element holding the activity word, then every user global scalar,
    // then the by-reference ones (structs, unions, arrays) together: the region stores may write.
    const globals = new Map<number, GlobalVar>();
    const byRefGlobals: { id: number; size: number }[] = [];
    let gsize = 8; // activity word at 0
    for (const ecb of program.ecbs) {
      for (const d of [ecb.predicate, ...ecb.actions.map((a) => a.difo)]) {
        for (const v of d?.vartab ?? []) {
          if (v.scope !== D.DIFV_SCOPE_GLOBAL || v.kind !== D.DIFV_KIND_SCALAR || v.id < D.DIF_VAR_OTHER_UBASE) continue;
          if (globals.has(v.id) || byRefGlobals.some((g) => g.id === v.id)) continue;
          const string = v.type.kind === D.DIF_TYPE_STRING;
          if (!string && (v.type.flags & D.DIF_TF_BYREF)) {
            byRefGlobals.push({ id: v.id, size: v.type.size });
            continue;
          }
          const size = string ? strsize : 8; // DIF values are 64-bit
          gsize = roundUp(gsize, Math.min(8, Math.max(1, size)));
          globals.set(v.id, { offset: gsize, size, string, byRef: false });
          gsize += size;
        }
      }
    }
    gsize = roundUp(gsize, 8);
    const writableGlobals = { start: gsize, end: gsize };
    for (const g of byRefGlobals) {
      globals.set(g.id, { offset: gsize, size: g.size, string: false, byRef: true });
      gsize = roundUp(gsize + g.size, 8);
    }
    writableGlobals.end = gsize;

    // Per-CPU scratch memory.
    const maxData = Math.max(24, ...layouts.map((l) => l.dataSize));
    const maxKey = Math.max(8, ...aggDescs.map((a) => a.keySize)) + 8; // and a shared hash's id (aggregate.ts)
    for (const a of aggDescs) {
      if (a.valueSize > PERCPU_VALUE_MAX)
        throw new DeviceError(`aggregation @${a.name === '_' ? '' : a.name} needs ${a.valueSize} bytes per CPU, more than ${PERCPU_VALUE_MAX}`);
    }
    // String temporaries (tstrings.ts): as many slots as the busiest DIF object needs at once.
    // DTrace's scratch (alloca() and the copies into it): -x scratchsize, else a strsize slot for
    // each alloca() and copyin() call of the clause that has the most.
    const scratchSize = this.opts.scratchsize !== undefined
      ? roundUp(Math.max(8, this.opts.scratchsize), 8)
      : Math.max(8, strsize * Math.max(0, ...program.ecbs.map(allocaSites)));
    // A user-space string argument (proc:::exec's path) is copied into mem (tracepoint-args.ts).
    const userStrings = [...byProbe.values()].some(({ probe }) =>
      [...probe.args, ...(probe.sites ?? []).flatMap((s) => s.args)].some((x) => x.from?.kind === 'userString'));
    const mem = memLayout(strsize, maxData, maxKey, sharedInfoWords(program.ecbs.length), poolSlots(program.ecbs), scratchSize, userStrings);
    // Variables (variables.ts): their scratch region goes after the fixed parts of mem.
    const varPlan = planVariables(program, strsize, this.opts.dynvarsize);
    const varsBase = mem.size;
    mem.size += varPlan.regionSize;
    if (mem.size > PERCPU_VALUE_MAX)
      throw new DeviceError(`records too large for per-CPU scratch memory (${mem.size} bytes); reduce strsize`);
    // The rest of the per-CPU value is the clauses' working space (subroutines' work areas, the
    // static slots of execname and the like), taken per clause as it is translated.
    mem.work = mem.size;
    mem.workMax = PERCPU_VALUE_MAX - mem.size;
    mem.size = PERCPU_VALUE_MAX;

    // Maps.
    const memFd = this.map({ type: BPF_MAP_TYPE.PERCPU_ARRAY, keySize: 4, valueSize: mem.size, maxEntries: 1, name: 'dt_mem' });
    const globalsFd = this.map({ type: BPF_MAP_TYPE.ARRAY, keySize: 4, valueSize: roundUp(gsize, 8), maxEntries: 1, name: 'dt_globals' });
    this.globals = { fd: globalsFd, size: roundUp(gsize, 8) };
    const strtabBytes = strtab.bytes();
    const strtabFd = this.map({ type: BPF_MAP_TYPE.ARRAY, keySize: 4, valueSize: Math.max(8, roundUp(strtabBytes.length, 8)), maxEntries: 1, name: 'dt_strtab' });
    const strValue = Buffer.alloc(Math.max(8, roundUp(strtabBytes.length, 8)));
    strtabBytes.copy(strValue);
    native.mapUpdate(strtabFd, u32(0), strValue, 0);
    // curcpu's table (cpuinfo.ts): only for programs that use curcpu as a pointer.
    let cpuinfoFd: number | undefined;
    if (program.ecbs.some((e) => [e.predicate, ...e.actions.map((a) => a.difo)].some((d) => d && usesCpuinfo(d)))) {
      const table = cpuinfoTable(this.ncpu, this.onlineCpus);
      cpuinfoFd = this.map({ type: BPF_MAP_TYPE.ARRAY, keySize: 4, valueSize: table.length, maxEntries: 1, name: 'dt_cpuinfo' });
      native.mapUpdate(cpuinfoFd, u32(0), table, 0);
    }
    // vtimestamp (vtime.ts): each CPU's arriving thread, kept by a program on sched_switch that
    // runs from here on, whatever the activity word says.
    let vtime: VtimeEnv | undefined;
    if (program.ecbs.some((e) => [e.predicate, ...e.actions.map((a) => a.difo)].some((d) => d?.vartab.some((v) => v.id === D.DIF_VAR_VTIMESTAMP)))) {
      const fd = this.map({ type: BPF_MAP_TYPE.ARRAY, keySize: 4, valueSize: VTIME_VALUE_SIZE, maxEntries: this.ncpu, name: 'dt_vtime' });
      let prog: number, link: number;
      try {
        prog = native.progLoad({ type: BPF_PROG_TYPE.RAW_TRACEPOINT, insns: vtimeSwitchProgram(fd), license: 'GPL', name: 'dt_vtime' });
        this.fds.push(prog);
        link = native.rawTracepointOpen('sched_switch', prog);
        this.fds.push(link);
      } catch (e) {
        throw new DeviceError(`vtimestamp: cannot follow the scheduler's switches: ${(e as Error).message}`);
      }
      vtime = { fd, sumExecRuntime: vtimeOffsets().sumExecRuntime };
    }
    const eventsFd = this.map({ type: BPF_MAP_TYPE.PERF_EVENT_ARRAY, keySize: 4, valueSize: 4, maxEntries: this.ncpu, name: 'dt_events' });
    this.eventsFd = eventsFd;
    this.openBuffers(eventsFd);

    const aggregations = new Map<bigint, AggregationMap>();
    const aggInit: Buffer[] = [];
    let initOffset = 0;
    // Aggregations of one kind and key shape share a map (aggregate.ts): keyless ones an array
    // with an element each, keyed ones a hash whose key ends with the aggregation's id. One alone
    // keeps a map of its own, without the id.
    const groups = new Map<string, AggregationDescription[]>();
    for (const desc of aggDescs) {
      const keyed = aggIsKeyed(desc.action, desc.keys.length);
      const shape = `${keyed}/${desc.action}/${desc.valueSize}/${keyed ? roundUp(desc.keySize, 8) : 0}`;
      (groups.get(shape) ?? groups.set(shape, []).get(shape)!).push(desc);
    }
    for (const members of groups.values()) {
      const first = members[0], keyed = aggIsKeyed(first.action, first.keys.length), many = members.length > 1;
      const keySize = roundUp(first.keySize, 8);
      const fd = this.map({
        type: keyed ? BPF_MAP_TYPE.PERCPU_HASH : BPF_MAP_TYPE.PERCPU_ARRAY,
        keySize: keyed ? keySize + (many ? 8 : 0) : 4,
        valueSize: first.valueSize,
        // aggsize entries a map, shared by the aggregations in it (DTrace's aggsize, too, is
        // the space of all of them). Distributions are large: allocate their entries as keys
        // arrive, not aggsize of them up front. Others are preallocated: an insert in NMI
        // context (profile probes) can fail to allocate.
        maxEntries: keyed ? this.opts.aggsize : members.length,
        flags: keyed && first.valueSize > 64 ? BPF_F_NO_PREALLOC : 0,
        name: many ? `dt_aggs${first.id}` : `dt_agg${first.id}`,
      });
      members.forEach((desc, i) => {
        const shared = !many ? undefined : keyed ? { id: desc.id } : { index: i };
        const map: AggregationMap = { fd, keyed, keySize, valueSize: desc.valueSize, action: desc.action, initOffset, ...(shared ? { shared } : {}) };
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

    let dvarFd = -1;
    if (varPlan.dynamic.size > 0) {
      dvarFd = this.map({ type: BPF_MAP_TYPE.HASH, keySize: varPlan.keySize, valueSize: varPlan.valueSize, maxEntries: Math.max(1, varPlan.capacity), name: 'dt_dvars' });
      this.dvarDropsFd = this.map({ type: BPF_MAP_TYPE.PERCPU_ARRAY, keySize: 4, valueSize: 8, maxEntries: 1, name: 'dt_dvardrops' });
    }
    const vars = { plan: varPlan, base: varsBase, mapFd: dvarFd, dropsFd: this.dvarDropsFd ?? -1 };
    if (usesSpeculations(program.ecbs))
      this.spec = SpeculationMaps.create((o) => this.map(o), this.opts.nspec, this.opts.specsize, this.ncpu);

    const needsTask = program.ecbs.some((e) => [e.predicate, ...e.actions.map((a) => a.difo)].some(
      (d) => d?.vartab.some((v) => v.id === D.DIF_VAR_PPID) ||
        d?.insns.some((i) => i >>> 24 === D.DIF_OP_CALL && ((i >>> 8) & 0xffff) === D.DIF_SUBR_PROGENYOF)));
    const walltimeOffsetNs = BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint();

    // EPIDs in ECB-description order, then probe order, as DTrace assigns them.
    const probes: EnabledProbe[] = [];
    const plansByProbe = new Map<number, EcbPlan[]>();
    let epid = 1;
    for (let i = 0; i < program.ecbs.length; i++) {
      for (const { probe, ecbs } of byProbe.values()) {
        if (!ecbs.includes(i)) continue;
        const l = layouts[i];
        probes.push({
          epid, ecb: i, size: l.dataSize, records: l.records.filter((r): r is RecordDescription => r !== null),
          probe: { id: probe.id, provider: probe.provider, module: probe.module, func: probe.func, name: probe.name },
        });
        let plans = plansByProbe.get(probe.id);
        if (!plans) plansByProbe.set(probe.id, (plans = []));
        plans.push({ epid, desc: program.ecbs[i], records: l.records, keyRecords: l.keyRecords, dataSize: l.dataSize, emits: l.emits });
        epid++;
      }
    }

    // Probes reached through one shared tracepoint (see dispatch.ts): one program per set of
    // clauses, in a program array that a dispatcher attached there indexes.
    const dispatch = new DispatchPlan([...byProbe.values()].map((e) => e.probe), (o) => this.map(o),
      (fd, key, value) => native.mapUpdate(fd, key, value, 0));

    const errorProbe = findErrorProbe([...byProbe.values()].map((e) => e.probe), plansByProbe, probeStrings);
    const sites = [...byProbe.values()].flatMap(({ probe }) => probeSites(probe));
    // Uprobe sites share programs through uprobe-multi links where the kernel has them.
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
      const shared = shareUprobe ? sharing.translatorFor(probe, clauses, values.epids, mem, argLoader(probe))
        : dispatch.translatorFor(probe, plans.length, values.epids, mem, (args) => argLoader({
          id: probe.id, provider: probe.provider, module: probe.module, func: probe.func, name: probe.name, attach: probe.attach, args,
        }));
      const translator = () => new ProbeTranslator(
        {
          memFd, globalsFd, strtabFd, eventsFd, mem, strsize, difoStrtab,
          probeStrings: probeStrings.get(probe.id)!, instanceString, providerPid: probe.perProcess !== undefined, probeId: probe.id, globals, writableGlobals,
          activityOffset: 0, exitStopsClauses: probe.attach.kind !== 'dtrace' || probe.name === 'BEGIN', aggregations, aggInitFd, aggDropsFd: this.aggDropsFd, task: needsTask ? taskOffsets() : null, walltimeOffsetNs,
          errno: probe.errno, vars, shared: shared?.shared, spec: this.spec?.env, errorProbe, cpu: this.opts.cpu, cpuinfoFd, vtime, debug: this.settings.debug,
          contextTask: probe.attach.kind === 'rawTracepoint' && probe.attach.taskArg !== undefined
            ? { arg: probe.attach.taskArg, fields: taskFields() } : undefined,
          // A raw tracepoint program runs from bpf_trace_runN, called by the traced function.
          kernelStackSkip: probe.attach.kind === 'rawTracepoint' ? 2 : 0,
          ctxRegs: probe.attach.kind === 'profile',
        },
        shared ? shared.loadArgs : argLoader(probe),
        probe.attach.kind !== 'dtrace',
      );
      let insns: Buffer;
      try {
        insns = translator().translate(plans);
      } catch (e) {
        if (e instanceof TranslateError) throw new DeviceError(`${e.message} (clause for ${describe(probe)})`);
        throw e;
      }
      const progFd = this.load(probe, insns, plans, (ps) => translator().translate(ps));
      const lp = { probe, progFd, events: [] };
      if (shareUprobe) sharing.adopt(probe, clauses, progFd, values);
      else if (shared) dispatch.adopt(probe, clauses, progFd, values);
      else if (probe.attach.kind === 'dtrace') {
        if (probe.attach.which === 'BEGIN') this.begin.push(progFd);
        else if (probe.attach.which === 'END') this.end.push(progFd);
      } else this.loaded.push(lp);
    }
    for (const group of sharing.all()) this.loaded.push({ probe: group.probe, progFd: group.progFd, events: [], group });
    for (const d of dispatch.dispatchers()) {
      this.loaded.push({ probe: d.probe, progFd: this.load(d.probe, d.insns), events: [] });
    }

    return { probes, aggregations: this.aggs.map((a) => a.desc), matched };
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
    // Functions the kernel cannot probe are left out, unless nothing user-space is left.
    if (refused.length > 0 && (refused.length === uprobes || refused.some((r) => this.exact.has(r.probe.id)))) {
      const first = refused.find((r) => this.exact.has(r.probe.id)) ?? refused[0];
      throw new DeviceError(`failed to enable ${describe(first.probe)}: ${uprobeFailure(first.probe.attach as UprobeAttach, first.error)}`);
    }
    this.uninstrumented = [...new Set(refused.map((r) => r.probe.func))];
    const left = new Set(refused.map((r) => r.probe));
    // After every probe, so that one of the user's own at a hold's first site is in place first.
    for (const lp of this.loaded) {
      for (const probe of lp.group ? lp.group.sites.map((s) => s.probe) : [lp.probe]) {
        const at = probe.attach;
        if (at.kind === 'uprobe' && at.alsoRaise && !left.has(probe)) this.holdSemaphore(probe, at);
      }
    }
    for (const fd of this.begin) this.runOnTracedCpu(fd);
    afterBegin?.();
    this.setActivity(ACTIVITY_ACTIVE, ACTIVITY_WARMUP);
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
    await native.waitReadable(this.buffers.map((b) => b.fd), ms);
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
    const hashesRead = new Set<number>();
    for (const { desc, map } of this.aggs) {
      const stride = roundUp(map.valueSize, 8);
      const value = Buffer.alloc(stride * ncpu);
      const split = () => Array.from({ length: ncpu }, (_, c) => Buffer.from(value.subarray(c * stride, c * stride + map.valueSize)));
      if (!map.keyed) {
        const index = map.shared && 'index' in map.shared ? map.shared.index : 0;
        if (native.mapLookup(map.fd, u32(index), value)) out.push({ id: desc.id, key: Buffer.alloc(0), perCpu: split() });
        continue;
      }
      // A shared hash is read once, for all its aggregations: each entry's id ends its key.
      if (map.shared) {
        if (hashesRead.has(map.fd)) continue;
        hashesRead.add(map.fd);
      }
      let key: Buffer | null = null;
      const next = Buffer.alloc(map.keySize + (map.shared ? 8 : 0));
      while (native.mapNextKey(map.fd, key, next)) {
        key = Buffer.from(next);
        if (!native.mapLookup(map.fd, key, value)) continue;
        if (map.shared) out.push({ id: Number(key.readBigUInt64LE(map.keySize)), key: key.subarray(0, map.keySize), perCpu: split() });
        else out.push({ id: desc.id, key, perCpu: split() });
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

  /** clear(): every entry of aggregation `id` back to its initial value on every CPU; keys stay. */
  clearAggregation(id: number): void {
    const agg = this.aggs.find((a) => a.desc.id === id);
    if (!agg) return;
    const { map } = agg;
    const init = this.perCpuInitial(map);
    if (!map.keyed) return native.mapUpdate(map.fd, u32(map.shared && 'index' in map.shared ? map.shared.index : 0), init, 0);
    for (const key of this.aggregationKeys(map)) {
      if (map.shared && Number(key.readBigUInt64LE(map.keySize)) !== id) continue;
      try { native.mapUpdate(map.fd, key, init, 2 /* BPF_EXIST */); } catch { /* deleted meanwhile */ }
    }
  }

  /** trunc(): remove these keys of aggregation `id` (a keyless one goes back to its start). */
  removeAggregationKeys(id: number, keys: Buffer[]): void {
    const agg = this.aggs.find((a) => a.desc.id === id);
    if (!agg) return;
    const { map } = agg;
    if (!map.keyed) {
      if (keys.length > 0) native.mapUpdate(map.fd, u32(map.shared && 'index' in map.shared ? map.shared.index : 0), this.perCpuInitial(map), 0);
      return;
    }
    const suffix = Buffer.alloc(8);
    suffix.writeBigUInt64LE(BigInt(id));
    for (const key of keys) native.mapDelete(map.fd, map.shared ? Buffer.concat([key, suffix]) : key);
  }

  private perCpuInitial(map: AggregationMap): Buffer {
    const ncpu = this.ncpu;
    const stride = roundUp(map.valueSize, 8);
    const one = aggInitialValue(map.action, map.valueSize);
    const all = Buffer.alloc(stride * ncpu);
    for (let c = 0; c < ncpu; c++) one.copy(all, c * stride);
    return all;
  }

  private aggregationKeys(map: AggregationMap): Buffer[] {
    const keys: Buffer[] = [];
    let key: Buffer | null = null;
    const next = Buffer.alloc(map.keySize + (map.shared && 'id' in map.shared ? 8 : 0));
    while (native.mapNextKey(map.fd, key, next)) keys.push((key = Buffer.from(next)));
    return keys;
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

  private map(o: { type: number; keySize: number; valueSize: number; maxEntries: number; name: string; flags?: number }): number {
    const fd = native.mapCreate(o);
    this.fds.push(fd);
    return fd;
  }

  private closeFd(fd: number): void {
    const i = this.fds.indexOf(fd);
    if (i >= 0) this.fds.splice(i, 1);
    try { native.close(fd); } catch { /* ignore */ }
  }

  private openBuffers(eventsFd: number): void {
    // A perf ring is a power of two pages, at most 2^20 of them. A size the kernel cannot give is
    // lowered by halves under bufresize=auto, as DTrace's kernel lowers it (dtrace(1) then says
    // "buffer size lowered to ..."); under bufresize=manual it fails the enabling.
    const pageSize = native.pageSize();
    const wanted = Math.max(1, 2 ** Math.floor(Math.log2(Math.max(4096, this.opts.bufsize) / pageSize)));
    let pages = Math.min(wanted, MAX_RING_PAGES);
    const manual = this.opts.bufresize === 'manual';
    if (manual && pages < wanted) throw new DeviceError('bufsize: Cannot allocate memory');
    for (const cpu of this.tracedCpus) {
      const fd = native.perfEventOpen({
        type: PERF_TYPE_SOFTWARE, config: PERF_COUNT_SW_BPF_OUTPUT, sampleType: PERF_SAMPLE_RAW,
        wakeupEvents: 1, pid: -1, cpu,
      });
      this.fds.push(fd);
      native.mapUpdate(eventsFd, u32(cpu), u32(fd), 0);
      for (;;) {
        try {
          const handle = native.perfBufferOpen(fd, pages);
          this.buffers.push({ cpu, fd, handle });
          break;
        } catch (e) {
          if ((e as { code?: string }).code !== 'ENOMEM' || pages === 1) throw e;
          if (manual) throw new DeviceError('bufsize: Cannot allocate memory');
          pages /= 2;
        }
      }
    }
    if (pages < wanted) this.bufsizeLowered = pages * pageSize;
  }

  private load(probe: Probe, insns: Buffer, plans?: EcbPlan[], translate?: (plans: EcbPlan[]) => Buffer): number {
    const type = probe.attach.kind === 'uprobe' ? BPF_PROG_TYPE.KPROBE
      : probe.attach.kind === 'tracepoint' ? BPF_PROG_TYPE.TRACEPOINT
      : probe.attach.kind === 'profile' ? BPF_PROG_TYPE.PERF_EVENT : BPF_PROG_TYPE.RAW_TRACEPOINT;
    // Uprobes attach through uprobe-multi links where the kernel has them (see attach()).
    const multi = probe.attach.kind === 'uprobe' && uprobeMultiSupported() ? { expectedAttachType: BPF_TRACE_UPROBE_MULTI } : {};
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
      const fd = native.progLoad({ type, insns: plans ? sabotageForTest(insns, plans, this.settings.debug?.rejectClause) : insns, license: 'GPL', name: progName(probe), logLevel: this.settings.verbose ? 1 : 0, ...multi });
      this.fds.push(fd);
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

function u32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v >>> 0);
  return b;
}

const VANISHED = 'its tracepoint was removed after the probe was matched (another tool deleted the event)';

function describe(p: Probe): string {
  return `${p.provider}:${p.module}:${p.func}:${p.name}`;
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

function memLayout(strsize: number, maxData: number, maxKey: number, probeInfoWords: number, slots: number, scratchMax: number, userStrings: boolean): ArgMem {
  let off = 0;
  const take = (n: number) => { const at = off; off += roundUp(n, 8); return at; };
  const self = take(8), strtabBase = take(8), globalsBase = take(8), cpuinfo = take(8);
  const args = take(80);
  const tuple = take(8 * 8);
  const cmpA = take(strsize), cmpB = take(strsize);
  const key = take(maxKey), aggIncr = take(8);
  const bufMax = RECORD_HEADER_SIZE + roundUp(maxData, 8);
  const buf = take(bufMax);
  const poolSlot = slotSize(strsize);
  const pool = take(slots * poolSlot);
  const scratch = take(scratchMax);
  const probeInfo = take(4 * probeInfoWords);
  const errorArea = take(ERROR_AREA_SIZE);
  const strtok = take(8), task = take(8), stack = take(8 * STACK_DEPTH_FRAMES);
  const argString = userStrings ? { offset: take(strsize), size: strsize } : undefined;
  return { ...(argString ? { argString } : {}), errorArea, strtok, task, stack, probeInfo, self, strtabBase, globalsBase, args, cpuinfo, tuple, cmpA, cmpB, key, keyMax: maxKey, aggIncr, buf, bufMax, pool, poolSlot, scratch, scratchMax, work: 0, workMax: 0, size: off };
}

interface EcbLayout {
  records: (RecordDescription | null)[];
  keyRecords: (RecordDescription | null)[];
  dataSize: number;
  emits: boolean;
}

/** Actions the kernel carries out itself, recording nothing (dtrace_ecb_action_add gives them size 0). */
const NO_DATA_ACTIONS = new Set([D.DTRACEACT_STOP, D.DTRACEACT_RAISE, D.DTRACEACT_CHILL, D.DTRACEACT_BREAKPOINT, D.DTRACEACT_PANIC]);

/** The size of a task's comm, execname (TASK_COMM_LEN), its NUL included. */
const TASK_COMM_LEN = 16;

/** The key actions of the aggregating action at index j: its tuple less the increment. */
function aggKeyIndexes(acts: ActionDescription[], j: number): number[] {
  const keys: number[] = [];
  for (let k = j - acts[j].ntuple; k < j; k++) if (!isAggIncrement(acts, k)) keys.push(k);
  return keys;
}

/**
 * For each aggregation, which key positions hold nothing but execname in every clause that
 * aggregates into it. execname is at most 16 bytes (the kernel's TASK_COMM_LEN), so such a key
 * gets a 16-byte slot instead of strsize bytes: the map hashes and compares 16 bytes, not 256,
 * on every firing. The consumer decodes keys by the layout the device describes.
 */
function execnameKeyPositions(program: Program): Map<bigint, boolean[]> {
  const out = new Map<bigint, boolean[]>();
  for (const ecb of program.ecbs) {
    ecb.actions.forEach((act, j) => {
      if (!isAggregation(act.kind)) return;
      const here = aggKeyIndexes(ecb.actions, j).map((k) => {
        const difo = ecb.actions[k].difo;
        return difo !== null && difo.rtype.kind === D.DIF_TYPE_STRING && isBareVariable(difo, D.DIF_VAR_EXECNAME);
      });
      const seen = out.get(act.uarg);
      out.set(act.uarg, seen ? seen.map((b, p) => b && here[p] === true) : here);
    });
  }
  return out;
}

/** Lay out one ECB's records, as the kernel does when it enables an ECB. */
function layoutEcb(program: Program, index: number, strsize: number, execnameKeys: Map<bigint, boolean[]>): EcbLayout {
  const acts = program.ecbs[index].actions;
  const records: (RecordDescription | null)[] = acts.map(() => null);
  const keyRecords: (RecordDescription | null)[] = acts.map(() => null);
  const isKey = acts.map(() => false);
  const execnameKey = acts.map(() => false);
  acts.forEach((a, i) => {
    if (!isAggregation(a.kind)) return;
    for (let k = i - a.ntuple; k < i; k++) isKey[k] = true;
    aggKeyIndexes(acts, i).forEach((k, p) => { execnameKey[k] = execnameKeys.get(a.uarg)?.[p] === true; });
  });
  let off = 0;
  let keyOff = 0;
  acts.forEach((act, i) => {
    if (isAggregation(act.kind)) { keyOff = 0; return; }
    if (isAggIncrement(acts, i)) return; // an aggregating action's operand, not a key
    if (D.isSpeculativeAction(act.kind)) return; // speculate/commit/discard record nothing
    const rec = stackRecord(act.kind, act.arg) ?? recordFor(act.difo, act.kind, strsize, act.format, act.arg, act.uarg);
    if (execnameKey[i]) rec.size = Math.min(rec.size, TASK_COMM_LEN);
    if (isKey[i]) {
      keyOff = roundUp(keyOff, rec.alignment);
      keyRecords[i] = { ...rec, offset: keyOff };
      keyOff += rec.size;
      return;
    }
    off = roundUp(off, rec.alignment);
    records[i] = { ...rec, offset: off };
    off += rec.size;
  });
  // As DTrace's dtrace_ecb_resize: a clause whose actions record no data -- statements (void
  // expressions: assignments, copyout()), and raise(), stop(), chill(), commit(), discard(), which
  // act in the kernel -- writes no record, so nothing is printed for it; a clause with no actions
  // (the default action) or speculate() alone writes its header.
  const recordsNothing = (a: ActionDescription, i: number) => isAggregation(a.kind) || isKey[i] || isAggIncrement(acts, i)
    || D.isSpeculativeAction(a.kind) || NO_DATA_ACTIONS.has(a.kind)
    || (a.kind === D.DTRACEACT_DIFEXPR && a.difo !== null && a.difo.rtype.size === 0 && a.difo.rtype.kind !== D.DIF_TYPE_STRING);
  const emits = acts.length === 0 || (acts.length === 1 && acts[0].kind === D.DTRACEACT_SPECULATE)
    || acts.some((a, i) => !recordsNothing(a, i));
  return { records, keyRecords, dataSize: off, emits };
}

function recordFor(difo: Difo | null, kind: number, strsize: number, format: string | undefined, arg: bigint, uarg: bigint): RecordDescription {
  const t = difo?.rtype;
  let size = 0, type: RecordDescription['type'] = 'int', alignment = 1;
  if (t && t.kind === D.DIF_TYPE_STRING) {
    size = strsize, type = 'string';
  } else if (t && (t.flags & D.DIF_TF_BYREF)) {
    size = t.size, type = 'bytes';
    if (t.ckind === D.CTF_K_STRUCT || t.ckind === D.CTF_K_UNION)
      return { action: kind, size, offset: 0, alignment, format, arg, uarg, type, dump: true };
  } else if (t) {
    size = t.size;
    alignment = Math.max(1, Math.min(8, size));
    if (t.flags & D.DIF_TF_UNSIGNED) type = 'uint';
  }
  return { action: kind, size, offset: 0, alignment, format, arg, uarg, type };
}

function collectAggregations(program: Program, layouts: EcbLayout[]): AggregationDescription[] {
  const out = new Map<bigint, AggregationDescription>();
  program.ecbs.forEach((ecb, i) => {
    ecb.actions.forEach((act, j) => {
      if (!isAggregation(act.kind) || out.has(act.uarg)) return;
      const keys = aggKeyIndexes(ecb.actions, j).map((k) => layouts[i].keyRecords[k]!);
      const last = keys[keys.length - 1];
      out.set(act.uarg, {
        id: Number(act.uarg), name: act.aggName ?? '', action: act.kind, arg: act.arg, keys,
        keySize: last ? roundUp(last.offset + last.size, 8) : 8, valueSize: aggValueSize(act.kind, act.arg),
      });
    });
  });
  return [...out.values()];
}

/** The strings BPF programs reference: DIFO string tables and probe names, NUL-terminated. */
class StringTable {
  private parts: Buffer[] = [];
  private size = 0;
  private index = new Map<string, number>();
  addBlock(b: Buffer): number {
    const at = this.size;
    this.parts.push(b, Buffer.alloc(1));
    this.size += b.length + 1;
    return at;
  }
  add(s: string): number {
    const known = this.index.get(s);
    if (known !== undefined) return known;
    const at = this.addBlock(Buffer.from(s, 'utf8'));
    this.index.set(s, at);
    return at;
  }
  bytes(): Buffer {
    return Buffer.concat(this.parts);
  }
}

