// The layout steps of enabling a program, before any kernel object exists: which probes each ECB
// description matches, each ECB's records (as DTrace's kernel lays them out in dtrace_ecb_resize),
// the aggregations, the string table, the globals and the per-CPU scratch memory, and the EPIDs.
// Each step is a function of the program and the earlier steps' results; device.ts runs them in
// order, then creates the maps and translates.

import * as D from '../../dif/constants.js';
import type { ActionDescription, Program } from '../../dof/program.js';
import type { Difo } from '../../dif/difo.js';
import { difoConstant } from '../../dif/builder.js';
import type { Probe } from '../../providers/provider.js';
import type { ProbeRegistry } from '../../providers/registry.js';
import { isGlob } from '../../providers/glob.js';
import type { AggregationDescription, EnabledProbe, RecordDescription } from '../device.js';
import { RECORD_HEADER_SIZE } from '../../abi/records.js';
import { allocaSites, poolSlots, slotSize } from './tstrings.js';
import type { ArgMem } from './tracepoint-args.js';
import { type EcbPlan, type GlobalVar, isAggregation, isBareVariable, roundUp } from './translate.js';
import { type VariablePlan, planVariables } from './variables.js';
import { aggValueSize, isAggIncrement } from './aggregate.js';
import { sharedInfoWords } from './dispatch.js';
import { ERROR_AREA_SIZE } from './error-probe.js';
import { STACK_DEPTH_FRAMES, isStackAction, stackRecord } from './stack.js';
import { DeviceError } from './device-error.js';

/** The largest per-CPU map value (PCPU_MIN_UNIT_SIZE): the scratch memory's, and a per-CPU aggregation's. */
export const PERCPU_VALUE_MAX = 32768;

/** Bytes an aggregation entry takes in aggsize beyond its key and value, as DTrace for Linux counts them (about). */
const AGG_ENTRY_EXTRA = 16;

/**
 * How many entries the map of keyed aggregations of one key and value size holds: as DTrace for
 * Linux sizes its aggregation buffer, aggsize bytes over an entry (key, value and
 * AGG_ENTRY_EXTRA bytes), so that a small aggsize drops what it cannot hold. (DTrace for Linux
 * sizes every entry as the program's largest key and value; here a large distribution does not
 * take room from the other maps.) No more than 64 bytes an entry give: preallocated maps stay as
 * small as they were at the default 4 MB.
 */
export function aggregationEntries(aggsize: number, keySize: number, valueSize: number): number {
  const entry = roundUp(keySize, 8) + valueSize + AGG_ENTRY_EXTRA;
  return Math.min(Math.floor(aggsize / entry), Math.max(1024, Math.floor(aggsize / 64)));
}

/** Is aggsize too small for the data of one of the aggregations? (A keyed one's entries may still all drop.) */
export function aggsizeTooSmall(aggsize: number, aggDescs: AggregationDescription[]): boolean {
  return aggDescs.some((d) => aggsize < d.valueSize + AGG_ENTRY_EXTRA);
}

/** The largest value of a plain map (a little under KMALLOC_MAX_SIZE): an aggregation's kept once for all CPUs. */
const AGG_VALUE_MAX = (4 << 20) - 4096;

/** Every DIF object of the program: predicates and actions' expressions. */
export function programDifos(program: Program): Difo[] {
  return program.ecbs.flatMap((e) => [e.predicate, ...e.actions.map((a) => a.difo)]).filter((d): d is Difo => d !== null);
}

/** The probes each ECB description enables. */
export interface ProbeMatch {
  /** Probes matched, per ECB description (dtrace(1) fails a description that matched none). */
  matched: number[];
  /** Every enabled probe, by id, with the ECB descriptions that enable it in order. */
  byProbe: Map<number, { probe: Probe; ecbs: number[] }>;
  /** Probes some description names without a glob: refused, they fail the enabling. */
  exact: Set<number>;
}

export function matchProbes(registry: ProbeRegistry, program: Program): ProbeMatch {
  const matched: number[] = [];
  const byProbe = new Map<number, { probe: Probe; ecbs: number[] }>();
  const exact = new Set<number>();
  program.ecbs.forEach((ecb, i) => {
    const probes = registry.match(ecb.probe);
    matched.push(probes.length);
    // A probe a description names exactly must be placed; one a glob matched may be left out.
    const d = ecb.probe;
    if (d.function !== '' && d.name !== '' && !isGlob(d.function) && !isGlob(d.name)) for (const p of probes) exact.add(p.id);
    for (const p of probes) {
      let e = byProbe.get(p.id);
      if (!e) byProbe.set(p.id, (e = { probe: p, ecbs: [] }));
      e.ecbs.push(i);
    }
  });
  return { matched, byProbe, exact };
}

/** Each ECB description's records and the aggregations they feed. */
export function layoutRecords(program: Program, strsize: number): { ecbs: EcbLayout[]; aggregations: AggregationDescription[] } {
  const execnameKeys = execnameKeyPositions(program);
  const intKeys = integerKeyWidths(program);
  const stackKeys = stackKeyWidths(program);
  const ecbs = program.ecbs.map((_, i) => layoutEcb(program, i, strsize, execnameKeys, intKeys, stackKeys));
  return { ecbs, aggregations: collectAggregations(program, ecbs) };
}

/** Offsets of names in the string table map, as a probe's translation reads them. */
export type ProbeStrings = { prov: number; mod: number; func: number; name: number };

/** The string table map's bytes: every DIFO's strings and every enabled probe's names. */
export function layoutStrings(program: Program, probes: Probe[], instance: string): {
  bytes: Buffer; difoStrtab: Map<Difo, number>; probeStrings: Map<number, ProbeStrings>; instanceString: number;
} {
  const strtab = new StringTable();
  // probeinstance (RFD 2): one device traces one instance.
  const instanceString = strtab.add(instance);
  const difoStrtab = new Map<Difo, number>();
  for (const d of programDifos(program)) if (!difoStrtab.has(d)) difoStrtab.set(d, strtab.addBlock(d.strtab));
  const probeStrings = new Map<number, ProbeStrings>();
  for (const probe of probes) {
    probeStrings.set(probe.id, {
      prov: strtab.add(probe.provider), mod: strtab.add(probe.module),
      func: strtab.add(probe.func), name: strtab.add(probe.name),
    });
  }
  return { bytes: strtab.bytes(), difoStrtab, probeStrings, instanceString };
}

/** The globals map value: where each user global lives, and the region stores may write. */
export interface GlobalsLayout {
  vars: Map<number, GlobalVar>;
  writable: { start: number; end: number };
  size: number; // bytes, a multiple of 8
}

/**
 * One array element holding the activity word, then every user global scalar, then the
 * by-reference ones (structs, unions, arrays) together: the region stores may write.
 */
export function layoutGlobals(program: Program, strsize: number): GlobalsLayout {
  const vars = new Map<number, GlobalVar>();
  const byRef: { id: number; size: number }[] = [];
  let size = 8; // activity word at 0
  for (const d of programDifos(program)) {
    for (const v of d.vartab) {
      if (v.scope !== D.DIFV_SCOPE_GLOBAL || v.kind !== D.DIFV_KIND_SCALAR || v.id < D.DIF_VAR_OTHER_UBASE) continue;
      if (vars.has(v.id) || byRef.some((g) => g.id === v.id)) continue;
      const string = v.type.kind === D.DIF_TYPE_STRING;
      if (!string && (v.type.flags & D.DIF_TF_BYREF)) {
        byRef.push({ id: v.id, size: v.type.size });
        continue;
      }
      const vsize = string ? strsize : 8; // DIF values are 64-bit
      size = roundUp(size, Math.min(8, Math.max(1, vsize)));
      vars.set(v.id, { offset: size, size: vsize, string, byRef: false });
      size += vsize;
    }
  }
  size = roundUp(size, 8);
  const writable = { start: size, end: size };
  for (const g of byRef) {
    vars.set(g.id, { offset: size, size: g.size, string: false, byRef: true });
    size = roundUp(size + g.size, 8);
  }
  writable.end = size;
  return { vars, writable, size };
}

/** The per-CPU scratch memory (one PERCPU_VALUE_MAX value) and the variables' region in it. */
export interface MemoryLayout {
  mem: ArgMem;
  vars: VariablePlan;
  varsBase: number;
}

export function layoutMemory(
  program: Program, records: { ecbs: EcbLayout[]; aggregations: AggregationDescription[] }, probes: Probe[],
  opts: { strsize: number; scratchsize?: number; dynvarsize: number },
): MemoryLayout {
  const { strsize } = opts;
  const maxData = Math.max(24, ...records.ecbs.map((l) => l.dataSize));
  const maxKey = Math.max(8, ...records.aggregations.map((a) => a.keySize),
    ...records.ecbs.flatMap((l) => l.keyRecords.map((r) => (r ? roundUp(r.offset + r.size, 8) : 0)))) + 8; // and a shared hash's id (aggregate.ts)
  for (const a of records.aggregations) {
    if (a.valueSize > AGG_VALUE_MAX)
      throw new DeviceError(`aggregation @${a.name === '_' ? '' : a.name} needs ${a.valueSize} bytes, more than ${AGG_VALUE_MAX}`);
  }
  // String temporaries (tstrings.ts): as many slots as the busiest DIF object needs at once.
  // DTrace's scratch (alloca() and the copies into it): -x scratchsize, else a strsize slot for
  // each alloca() and copyin() call of the clause that has the most.
  const scratchSize = opts.scratchsize !== undefined
    ? roundUp(Math.max(8, opts.scratchsize), 8)
    : Math.max(8, roundUp(strsize, 8) * Math.max(0, ...program.ecbs.map(allocaSites)));
  // A user-space string argument (proc:::exec's path) is copied into mem (tracepoint-args.ts).
  const userStrings = probes.some((probe) =>
    [...probe.args, ...(probe.sites ?? []).flatMap((s) => s.args)].some((x) => x.from?.kind === 'userString'));
  const mem = memLayout(strsize, maxData, maxKey, sharedInfoWords(program.ecbs.length), poolSlots(program.ecbs), scratchSize, userStrings);
  // Variables (variables.ts): their scratch region goes after the fixed parts of mem.
  const vars = planVariables(program, strsize, opts.dynvarsize);
  const varsBase = mem.size;
  mem.size += vars.regionSize;
  if (mem.size > PERCPU_VALUE_MAX)
    throw new DeviceError(`records too large for per-CPU scratch memory (${mem.size} bytes); reduce strsize`);
  // The rest of the per-CPU value is the clauses' working space (subroutines' work areas, the
  // static slots of execname and the like), taken per clause as it is translated.
  mem.work = mem.size;
  mem.workMax = PERCPU_VALUE_MAX - mem.size;
  mem.size = PERCPU_VALUE_MAX;
  return { mem, vars, varsBase };
}

/**
 * EPIDs in ECB-description order, then probe order, as DTrace assigns them: what the consumer
 * is told of each, and each probe's plans for the translator.
 */
export function assignEpids(program: Program, byProbe: ProbeMatch['byProbe'], layouts: EcbLayout[]): { probes: EnabledProbe[]; plans: Map<number, EcbPlan[]> } {
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
  return { probes, plans: plansByProbe };
}

function memLayout(strsize: number, maxData: number, maxKey: number, probeInfoWords: number, slots: number, scratchMax: number, userStrings: boolean): ArgMem {
  let off = 0;
  const take = (n: number) => { const at = off; off += roundUp(n, 8); return at; };
  const self = take(8), strtabBase = take(8), globalsBase = take(8), cpuinfo = take(8);
  const args = take(80);
  const tuple = take(8 * D.DIF_DTR_STACK);
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

export interface EcbLayout {
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

/** The slot every clause gives an integer key of one aggregation: the widest, typed as first seen. */
interface IntegerKey { size: number; type: 'int' | 'uint'; shown: 1 | 2 | 4 | 8 }

function isIntegerRecord(act: ActionDescription, rec: RecordDescription): boolean {
  return !isStackAction(act.kind) && (rec.type === 'int' || rec.type === 'uint') && [1, 2, 4, 8].includes(rec.size);
}

/**
 * For each aggregation, the width of each integer key position across all the clauses that
 * aggregate into it. Clauses may key one aggregation with integers of different widths
 * (`(uint8_t)2` here, `(int)4` there); DTrace keeps the values, so every clause lays the key out
 * alike -- else the consumer, reading by one layout, would read another clause's key wrongly.
 */
function integerKeyWidths(program: Program): Map<bigint, IntegerKey[]> {
  const out = new Map<bigint, IntegerKey[]>();
  for (const ecb of program.ecbs) {
    ecb.actions.forEach((act, j) => {
      if (!isAggregation(act.kind)) return;
      const seen = out.get(act.uarg) ?? [];
      aggKeyIndexes(ecb.actions, j).forEach((k, p) => {
        const key = ecb.actions[k];
        const rec = recordFor(key.difo, key.kind, 0, key.format, key.arg, key.uarg);
        if (!isIntegerRecord(key, rec)) return;
        const prev = seen[p];
        seen[p] = { size: Math.max(prev?.size ?? 0, rec.size), type: prev?.type ?? (rec.type as IntegerKey['type']), shown: prev?.shown ?? (rec.size as IntegerKey['shown']) };
      });
      out.set(act.uarg, seen);
    });
  }
  return out;
}

/**
 * For each aggregation, the widest stack record at each key position across its clauses: one
 * clause may key it by stack() and another by ustack() (or by other frame counts), and the hash
 * map has one key size, so every clause gives the stack the widest slot, zero-filled past its own.
 */
function stackKeyWidths(program: Program): Map<bigint, number[]> {
  const out = new Map<bigint, number[]>();
  for (const ecb of program.ecbs) {
    ecb.actions.forEach((act, j) => {
      if (!isAggregation(act.kind)) return;
      const seen = out.get(act.uarg) ?? [];
      aggKeyIndexes(ecb.actions, j).forEach((k, p) => {
        const rec = stackRecord(ecb.actions[k].kind, ecb.actions[k].arg);
        if (rec) seen[p] = Math.max(seen[p] ?? 0, rec.size);
      });
      out.set(act.uarg, seen);
    });
  }
  return out;
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
function layoutEcb(
  program: Program, index: number, strsize: number, execnameKeys: Map<bigint, boolean[]>, intKeys: Map<bigint, IntegerKey[]>,
  stackKeys: Map<bigint, number[]>,
): EcbLayout {
  const acts = program.ecbs[index].actions;
  const records: (RecordDescription | null)[] = acts.map(() => null);
  const keyRecords: (RecordDescription | null)[] = acts.map(() => null);
  const isKey = acts.map(() => false);
  const execnameKey = acts.map(() => false);
  const intKey: (IntegerKey | undefined)[] = acts.map(() => undefined);
  const stackKey: (number | undefined)[] = acts.map(() => undefined);
  acts.forEach((a, i) => {
    if (!isAggregation(a.kind)) return;
    for (let k = i - a.ntuple; k < i; k++) isKey[k] = true;
    aggKeyIndexes(acts, i).forEach((k, p) => {
      execnameKey[k] = execnameKeys.get(a.uarg)?.[p] === true;
      intKey[k] = intKeys.get(a.uarg)?.[p];
      stackKey[k] = stackKeys.get(a.uarg)?.[p];
    });
  });
  let off = 0;
  let keyOff = 0;
  acts.forEach((act, i) => {
    if (isAggregation(act.kind)) { keyOff = 0; return; }
    if (isAggIncrement(acts, i)) return; // an aggregating action's operand, not a key
    if (D.isSpeculativeAction(act.kind)) return; // speculate/commit/discard record nothing
    const rec = stackRecord(act.kind, act.arg) ?? recordFor(act.difo, act.kind, strsize, act.format, act.arg, act.uarg);
    if (execnameKey[i]) rec.size = Math.min(rec.size, TASK_COMM_LEN);
    const ik = intKey[i];
    if (ik && isIntegerRecord(act, rec)) {
      rec.size = ik.size, rec.alignment = ik.size, rec.type = ik.type;
      if (ik.shown !== ik.size) rec.shown = ik.shown;
    }
    const sk = stackKey[i];
    if (sk !== undefined && isStackAction(act.kind)) rec.size = Math.max(rec.size, sk);
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

/**
 * The aggregations clear() or trunc() names: the device switches their buffers (agg-switch.ts).
 * The compiler names one by a constant; should an action compute it, every aggregation is.
 */
export function switchedAggregations(program: Program, aggregations: AggregationDescription[]): Set<number> {
  const ids = new Set<number>();
  for (const ecb of program.ecbs) {
    const acts = ecb.actions;
    for (let i = 0; i < acts.length; i++) {
      const act = acts[i];
      if (act.kind !== D.DTRACEACT_LIBACT || (act.arg !== BigInt(D.DT_ACT_CLEAR) && act.arg !== BigInt(D.DT_ACT_TRUNC))) continue;
      const id = act.difo ? difoConstant(act.difo) : null;
      if (id === null) return new Set(aggregations.map((a) => a.id));
      ids.add(Number(id));
      // trunc()'s operand follows, an action of the same kind.
      if (act.arg === BigInt(D.DT_ACT_TRUNC) && acts[i + 1]?.kind === D.DTRACEACT_LIBACT && acts[i + 1].arg === act.arg) i++;
    }
  }
  return ids;
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

