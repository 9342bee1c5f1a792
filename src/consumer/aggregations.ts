// Aggregations in the consumer: decode each entry's key, merge its per-CPU data, print every
// aggregation at exit, and carry out the aggregation actions whose records the consumer reads
// (printa, and the library actions clear, trunc, normalize, denormalize), as libdtrace does
// when it consumes those records. Aggregation drops the device counted are reported here too.

import * as D from '../dif/constants.js';
import type { AggregationDescription, AggregationEntry, Device, RecordDescription } from '../device/device.js';
import {
  type AggAction, type AggData, type AggDesc, type AggEntry, type AggPrintOptions, aggFormatValue, formatAggKey,
  compareAggKeys, compareAggValues, formatAggValue, formatAllAggregations, formatPrinta, formatPrintaDefault,
  sortAggEntries,
} from './aggprint.js';
import { type AggFormatValue, formatPrintf } from './printf.js';
import { parseFormat } from '../abi/printf-format.js';
import { decode } from './decode.js';
import { addAggData, aggSquares, aggSum, aggWord } from '../dif/aggdata.js';
import { dropInstance } from './records.js';
import { hasUserKeys, isSymbolicAction, normalizeSymbolKeys, rememberKeyProcesses, symbolicKey } from './stacks.js';

const ACTIONS: Record<number, AggAction> = {
  [D.DTRACEAGG_COUNT]: 'count', [D.DTRACEAGG_SUM]: 'sum', [D.DTRACEAGG_MIN]: 'min',
  [D.DTRACEAGG_MAX]: 'max', [D.DTRACEAGG_AVG]: 'avg', [D.DTRACEAGG_STDDEV]: 'stddev',
  [D.DTRACEAGG_QUANTIZE]: 'quantize', [D.DTRACEAGG_LQUANTIZE]: 'lquantize', [D.DTRACEAGG_LLQUANTIZE]: 'llquantize',
};

const S64 = (b: Buffer, i: number) => b.readBigInt64LE(i * 8);

/** Merge the per-CPU values of one entry, as the consumer does for DTrace's per-CPU buffers. */
export function mergePerCpu(action: number, perCpu: Buffer[]): AggData {
  const sum = aggSum(perCpu[0]?.length ?? 0);
  for (const b of perCpu) addAggData(action, sum, b);
  const word = (i: number) => aggWord(sum, i);
  switch (action) {
    // min/max: the value, when some CPU saw one.
    case D.DTRACEAGG_MIN: return sum[1] ? sum[0] : 0x7fffffffffffffffn;
    case D.DTRACEAGG_MAX: return sum[1] ? sum[0] : -0x8000000000000000n;
    case D.DTRACEAGG_AVG: return { count: word(0), total: word(1) };
    case D.DTRACEAGG_STDDEV: return { count: word(0), total: word(1), totalSquares: aggSquares(sum) };
    case D.DTRACEAGG_QUANTIZE:
    case D.DTRACEAGG_LQUANTIZE:
    case D.DTRACEAGG_LLQUANTIZE:
      return sum.map((_, i) => word(i));
    default: return sum.length > 0 ? word(0) : 0n;
  }
}

/**
 * Does an entry hold data? Keyless aggregations live in arrays that exist before anything fires;
 * keyed entries exist once a value arrived.
 */
function seen(action: number, perCpu: Buffer[], keyed: boolean): boolean {
  if (keyed) return true;
  if (action === D.DTRACEAGG_MIN || action === D.DTRACEAGG_MAX) return perCpu.some((b) => S64(b, 1) !== 0n);
  if (action === D.DTRACEAGG_COUNT || action === D.DTRACEAGG_AVG || action === D.DTRACEAGG_STDDEV)
    return perCpu.some((b) => S64(b, 0) !== 0n);
  if (action === D.DTRACEAGG_QUANTIZE || action === D.DTRACEAGG_LQUANTIZE || action === D.DTRACEAGG_LLQUANTIZE)
    return perCpu.some((b) => b.some((x) => x !== 0));
  return true;
}

/** The printing description of an aggregation. */
export function aggDesc(desc: AggregationDescription, normal = 1n): AggDesc {
  const out: AggDesc = { action: ACTIONS[desc.action] ?? 'count' };
  if (desc.action === D.DTRACEAGG_LQUANTIZE) out.lquantize = D.unpackLquantizeArg(desc.arg);
  if (desc.action === D.DTRACEAGG_LLQUANTIZE) out.llquantize = D.unpackLlquantizeArg(desc.arg);
  if (normal !== 1n) out.normal = normal;
  return out;
}

/** Sorting options from -x / #pragma D option (aggsortkey, aggsortrev, aggsortpos, aggsortkeypos). */
export function aggSortOptions(options: Map<string, string> | undefined): AggPrintOptions {
  const set = (n: string) => options?.has(n) === true && options.get(n) !== 'unset';
  const int = (n: string) => (options?.has(n) ? Number(options.get(n)) : undefined);
  return {
    aggsortkey: set('aggsortkey'),
    aggsortrev: set('aggsortrev'),
    aggsortkeypos: int('aggsortkeypos'),
    aggsortpos: int('aggsortpos'),
  };
}

/** One aggregation's sorted entries, with what structured output needs to show them. */
export interface AggTable {
  name: string;
  desc: AggDesc;
  /** The action of each key record (stack and symbol keys print as such). */
  keyActions: number[];
  entries: AggEntry[];
}

/** What the device may offer beyond the Device interface for aggregation actions and drops. */
/** One decoded entry with its raw key (for trunc). */
interface Entry extends AggEntry {
  raw: Buffer;
  /** The map keys merged into this entry when its symbol keys were normalized (stacks.ts). */
  sources?: Buffer[];
}

export class Aggregations {
  private byId = new Map<number, AggregationDescription>();
  private normals = new Map<number, bigint>();
  /** Each CPU's drops reported so far (a fleet's: each instance's CPU). */
  private dropsSeen = new Map<string, number>();
  /** Aggregations printa() has printed: dtrace leaves them out at exit (DTRACE_AGD_PRINTED). */
  private printed = new Set<number>();
  /** Keyless aggregations clear() zeroed: their entry stays, printed as zero (libdtrace keeps it). */
  private kept = new Set<number>();
  /**
   * The snapshot of one pass over the buffers, as DTrace's consumer snapshots once per pass:
   * printa(), clear() and trunc() in a pass all work on it, so clear() and trunc() take away
   * exactly what printa() showed (what probes add meanwhile shows at the next pass), and a
   * printa() after trunc(@, n) shows what trunc() left.
   */
  private passSnap: AggregationEntry[] | null = null;
  /** Keyless aggregations trunc() emptied: hidden while their (reset) data is all zero. */
  private truncated = new Set<number>();

  constructor(
    private device: Device,
    descs: AggregationDescription[],
    private opts: AggPrintOptions & { strsize?: number },
  ) {
    for (const d of descs) this.byId.set(d.id, d);
  }

  /** setopt() of aggsortkey, aggsortkeypos, aggsortpos, aggsortrev or aggzoom while tracing. */
  setPrintOptions(o: Partial<AggPrintOptions>): void {
    Object.assign(this.opts, o);
  }

  private entries(desc: AggregationDescription, all: AggregationEntry[]): Entry[] {
    const keyed = desc.keys.length > 0 || this.kept.has(desc.id);
    const hidden = desc.keys.length === 0 && this.truncated.has(desc.id);
    return normalizeSymbolKeys(desc, all.filter((e) => e.id === desc.id))
      .filter((e) => seen(desc.action, e.perCpu, keyed) && !(hidden && e.perCpu.every((b) => b.every((x) => x === 0))))
      .map((e) => ({ keys: desc.keys.map((k) => (isSymbolicAction(k.action) ? symbolicKey(k, e.key) : decode(k, e.key))), data: mergePerCpu(desc.action, e.perCpu), raw: e.key, sources: e.sources }));
  }

  /** A new pass over the buffers begins: the next read takes a new snapshot. */
  newPass(): void {
    this.passSnap = null;
  }

  /** This pass's snapshot. */
  private read(): AggregationEntry[] {
    return (this.passSnap ??= this.device.aggregationSnapshot());
  }

  /** A snapshot of now (at exit, and for the library API). */
  private readNow(): AggregationEntry[] {
    this.passSnap = null;
    return this.read();
  }

  /** Keep the mappings of processes named by user-stack keys while they still run (stacks.ts). */
  rememberProcesses(): void {
    const descs = [...this.byId.values()];
    if (hasUserKeys(descs)) rememberKeyProcesses(descs, this.device.aggregationSnapshot());
  }

  private descOf(desc: AggregationDescription): AggDesc {
    return { ...aggDesc(desc, this.normals.get(desc.id) ?? 1n), zoom: this.opts.aggzoom };
  }

  /** Every aggregation printa() has not printed, as dtrace prints them at exit. */
  formatAll(): string {
    return formatAllAggregations(this.unprinted(), this.opts);
  }

  /** -B: what formatAll() prints, an aggregation at a time. */
  formatEach(): { id: number; text: string }[] {
    return this.unprinted().map((v) => ({ id: v.varId, text: formatAllAggregations([v], this.opts) }));
  }

  /** The aggregations printa() has not printed that have entries, in the order DTrace prints them. */
  private unprinted() {
    const snap = this.readNow();
    const rev = this.opts.aggsortrev ? -1 : 1;
    return [...this.byId.values()].filter((d) => !this.printed.has(d.id))
      .map((d) => ({ d, varId: d.id, desc: this.descOf(d), entries: this.entries(d, snap) }))
      .filter((v) => v.entries.length > 0).sort((a, b) => rev * (a.varId - b.varId));
  }

  /** Every aggregation (printed or not, with entries or not) as tables, by id: the library API's snapshot. */
  snapshot(): AggTable[] {
    const snap = this.readNow();
    return [...this.byId.values()].sort((a, b) => a.id - b.id)
      .map((d) => this.table(d, this.descOf(d), this.entries(d, snap)));
  }

  /** printa() for structured output (oformat.ts): each aggregation's entries, sorted. */
  tables(ids: number[]): AggTable[] {
    const snap = this.read();
    const descs = ids.map((id) => this.byId.get(id)).filter((d): d is AggregationDescription => d !== undefined);
    for (const d of descs) this.printed.add(d.id);
    return descs.map((d) => this.table(d, this.descOf(d), this.entries(d, snap)));
  }

  /** For structured output at exit (-O): what formatAll() would print, as tables. */
  pendingTables(): AggTable[] {
    return this.unprinted().map((v) => this.table(v.d, v.desc, v.entries));
  }

  private table(d: AggregationDescription, desc: AggDesc, entries: AggEntry[]): AggTable {
    return { name: d.name, desc, keyActions: d.keys.map((k) => k.action), entries: sortAggEntries(desc, entries, this.opts) };
  }

  /**
   * printa() of one or more aggregations (ids), with or without a format. Several aggregations
   * are joined on their keys: each line shows the keys once and one %@ value per aggregation.
   */
  printa(ids: number[], format: string | undefined): string {
    const snap = this.read();
    const descs = ids.map((id) => this.byId.get(id)).filter((d): d is AggregationDescription => d !== undefined);
    if (descs.length === 0) return '';
    for (const d of descs) this.printed.add(d.id);
    const first = descs[0];
    if (descs.length === 1) {
      const entries = this.entries(first, snap);
      if (format === undefined) return formatPrintaDefault(this.descOf(first), entries, this.opts);
      return formatPrinta(format, this.descOf(first), entries, this.opts);
    }
    return this.printaJoined(descs, snap, format);
  }

  private printaJoined(descs: AggregationDescription[], snap: AggregationEntry[], format: string | undefined): string {
    // Entries join by their keys' values: the device may lay the same key out differently in
    // different aggregations (a bare execname key takes 16 bytes, another string strsize).
    const tables = descs.map((d) => new Map(this.entries(d, snap).map((e) => [keyIdentity(e.keys), e])));
    const keys = new Map<string, Entry>();
    for (const t of tables) for (const [k, e] of t) if (!keys.has(k)) keys.set(k, e);
    // Order by the values of the aggregation aggsortpos names (the first when there is no such
    // position), ties by the next one's and so on round to the one before it, then by key; by
    // key alone under aggsortkey -- as DTrace for Linux orders them.
    const n = descs.length;
    const at = this.opts.aggsortpos ?? 0;
    const pos = at >= 0 && at < n ? at : 0;
    const aggDescs = descs.map((d) => this.descOf(d));
    const rows = [...keys.entries()].map(([k, e]) => ({ keys: e.keys, id: k, data: descs.map((d, i) => tables[i].get(k)?.data ?? zeroData(d)) }));
    const keypos = this.opts.aggsortkeypos ?? 0, strsize = this.opts.strsize;
    const byValues = (a: typeof rows[0], b: typeof rows[0]) => {
      for (let j = 0; j < n; j++) {
        const i = (pos + j) % n;
        const c = compareAggValues(aggDescs[i], a.data[i], b.data[i]);
        if (c !== 0) return c;
      }
      return 0;
    };
    const rev = this.opts.aggsortrev ? -1 : 1;
    const order = rows.sort((a, b) => rev * (this.opts.aggsortkey
      ? compareAggKeys(a.keys, b.keys, keypos, strsize)
      : byValues(a, b) || compareAggKeys(a.keys, b.keys, keypos, strsize)));
    let out = format === undefined ? '\n' : '';
    for (const e of order) {
      const k = e.id;
      const values: AggFormatValue[] = descs.map((d, i) => {
        const data = tables[i].get(k)?.data ?? zeroData(d);
        return aggFormatValue(this.descOf(d), data);
      });
      if (format !== undefined) out += formatPrintf(parseFormat(format), e.keys, { ...this.opts, aggValues: values });
      else {
        // Without a format: the keys, then each aggregation's value in the default layout.
        out += e.keys.map((key) => formatAggKey(key, strsize)).join('');
        descs.forEach((d, i) => { out += formatAggValue(this.descOf(d), tables[i].get(k)?.data ?? zeroData(d)); });
        out += '\n';
      }
    }
    return out;
  }

  /** clear(@a): values back to zero, keys kept. */
  clear(id: number): void {
    const desc = this.byId.get(id);
    const snap = this.read();
    if (desc && desc.keys.length === 0 && this.entries(desc, snap).length > 0) this.kept.add(id), this.truncated.delete(id);
    this.device.clearAggregation(id, snap.filter((e) => e.id === id));
    // The pass's snapshot reads zero for it too, keys kept (a min() or max() with no value seen).
    this.passSnap = snap.map((e) => (e.id === id ? { ...e, perCpu: e.perCpu.map((b) => Buffer.alloc(b.length)) } : e));
  }

  /** trunc(@a, n): keep the n entries that sort first (the last -n for negative n); none without n. */
  trunc(id: number, n: bigint): void {
    const desc = this.byId.get(id);
    if (!desc) return;
    const snap = this.read();
    const sorted = sortAggEntries(this.descOf(desc), this.entries(desc, snap), {
      ...this.opts, aggsortrev: false, aggsortkey: false,
    }) as Entry[];
    // DTrace keeps the n highest values (the last ones in the ascending order) for n > 0.
    let remove: Entry[];
    if (n > 0n) remove = sorted.slice(0, Math.max(0, sorted.length - Number(n)));
    else if (n < 0n) remove = sorted.slice(Math.min(sorted.length, Number(-n)));
    else remove = sorted;
    if (remove.length > 0) this.kept.delete(id);
    // A keyless aggregation's array entry is only reset: DTrace has no entry until it is hit.
    if (remove.length > 0 && desc.keys.length === 0) this.truncated.add(id);
    const byKey = new Map(snap.filter((e) => e.id === id).map((e) => [e.key.toString('hex'), e]));
    const read = remove.flatMap((e) => e.sources ?? [e.raw]).map((k) => byKey.get(k.toString('hex'))).filter((e) => e !== undefined);
    this.device.removeAggregationKeys(id, read);
    // The pass's snapshot loses them too; what probes add meanwhile shows at the next pass.
    if (this.passSnap) {
      const gone = new Set(read);
      this.passSnap = this.passSnap.filter((e) => !gone.has(e));
    }
  }

  normalize(id: number, normal: bigint): void {
    if (normal !== 0n) this.normals.set(id, BigInt.asUintN(64, normal));
  }

  denormalize(id: number): void {
    this.normals.delete(id);
  }

  /** "dtrace: N aggregation drops on CPU C" for drops counted since the last call. */
  drops(): string {
    let out = '';
    for (const { cpu, drops, instance } of this.device.aggregationDrops()) {
      const at = `${instance ?? ''}:${cpu}`;
      const before = this.dropsSeen.get(at) ?? 0;
      if (drops > before) {
        const n = drops - before;
        out += `dtrace: ${dropInstance(instance)}${n} aggregation drop${n === 1 ? '' : 's'} on CPU ${cpu}\n`;
      }
      this.dropsSeen.set(at, drops);
    }
    return out;
  }
}

/** The data of a key an aggregation lacks in a joined printa(): zero. */
function zeroData(desc: AggregationDescription): AggData {
  if (desc.action === D.DTRACEAGG_MIN || desc.action === D.DTRACEAGG_MAX) return 0n;
  return mergePerCpu(desc.action, [Buffer.alloc(desc.valueSize)]);
}

/**
 * Carry out the library action at recs[i] on the aggregations -- clear(), trunc(), normalize(),
 * denormalize() -- and return how many records it used: trunc and normalize carry their operand
 * in a second record.
 */
export function aggregationAction(aggs: Aggregations, recs: RecordDescription[], i: number, data: Buffer): number {
  const r = recs[i];
  const id = Number(intOf(decode(r, data)));
  const operand = () => (i + 1 < recs.length && recs[i + 1].action === D.DTRACEACT_LIBACT ? intOf(decode(recs[i + 1], data)) : 0n);
  switch (Number(r.arg)) {
    case D.DT_ACT_CLEAR:
      aggs.clear(id);
      return 1;
    case D.DT_ACT_DENORMALIZE:
      aggs.denormalize(id);
      return 1;
    case D.DT_ACT_NORMALIZE:
      aggs.normalize(id, operand());
      return 2;
    case D.DT_ACT_TRUNC:
      aggs.trunc(id, operand());
      return 2;
    default:
      return 1;
  }
}

/** The aggregations one printa() statement names: its consecutive records of one uarg. */
export function printaIds(recs: RecordDescription[], i: number, data: Buffer): { ids: number[]; consumed: number } {
  const ids = [Number(intOf(decode(recs[i], data)))];
  let j = i + 1;
  while (j < recs.length && recs[j].action === D.DTRACEACT_PRINTA && recs[j].uarg === recs[i].uarg) ids.push(Number(intOf(decode(recs[j++], data))));
  return { ids, consumed: j - i };
}

function intOf(v: ReturnType<typeof decode>): bigint {
  return v.kind === 'int' ? v.value : 0n;
}

/** A key tuple as a string that is equal for equal values, whatever the keys' byte layout. */
function keyIdentity(keys: unknown[]): string {
  return JSON.stringify(keys, (_, v) => (typeof v === 'bigint' ? `${v}n` : v));
}
