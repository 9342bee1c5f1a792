// The one walk over a record's actions: which consecutive records form one action (printf()'s
// arguments, printa()'s joined aggregations, setopt()'s and trunc()'s operands, tracemem()'s
// dynamic size) and what each action's values are. The text consumer (consumer.ts), -x
// oformat=json (oformat.ts) and the library API (api/dtrace.ts) render the actions differently
// through their own ActionRenderer; the grouping rules live here only.

import * as D from '../dif/constants.js';
import type { RecordDescription } from '../device/device.js';
import { type Aggregations, aggregationAction, printaIds } from './aggregations.js';
import { decode, printfArgRecords, printfArgs } from './decode.js';
import { planPrintf, type RecordPlan } from './printf.js';
import { isPrintFormat } from './print.js';
import type { Value } from './records.js';
import { isSetoptRecord, setoptArgs } from './setopt.js';
import { isSymbolicAction } from './stacks.js';

/** What a renderer does with each action of a record; `r` is the action's first record. */
export interface ActionRenderer {
  /** printf(), system() or freopen() (r.action says which): the format is r.format. */
  printf(r: RecordDescription, args: Value[]): void;
  /** trace() and the like: one value. */
  trace(r: RecordDescription, v: Value): void;
  /** print(): the value's bytes; r.format is its type schema. */
  print(r: RecordDescription, bytes: Buffer): void;
  /** printa(): the aggregations it names, joined when several. */
  printa(r: RecordDescription, ids: number[]): void;
  /** setopt(): the consumer sets the option. */
  setopt(r: RecordDescription, option: string, value: string): void;
  /** tracemem(): the bytes to show, the dynamic size already applied. */
  tracemem(r: RecordDescription, bytes: Buffer): void;
  /** exit(): its status. */
  exit(r: RecordDescription, status: number): void;
  /** ftruncate(): empty the output file (when the output is one). */
  ftruncate?(r: RecordDescription): void;
  /** stack(), ustack(), sym() and kin: the record's data, for formatSymbolicRecord() or symbolicKey(). */
  symbolic(r: RecordDescription, data: Buffer): void;
}

/**
 * Walk the actions of one record (its data after the header). clear(), trunc(), normalize()
 * and denormalize() act on `aggs` here, as libdtrace carries them out while consuming.
 */
export function walkActions(recs: RecordDescription[], data: Buffer, aggs: Aggregations, out: ActionRenderer): void {
  let tracememSize = 0;
  for (let i = 0; i < recs.length; i++) {
    const r = recs[i];
    switch (r.action) {
      case D.DTRACEACT_PRINTF:
      case D.DTRACEACT_SYSTEM:
      case D.DTRACEACT_FREOPEN: {
        const { args, last } = printfArgs(recs, i, data);
        i = last;
        out.printf(r, args);
        break;
      }
      case D.DTRACEACT_DIFEXPR:
        if (r.size === 0) break; // an expression statement: side effects only
        if (isPrintFormat(r.format)) out.print(r, data.subarray(r.offset, r.offset + r.size));
        else out.trace(r, decode(r, data));
        break;
      case D.DTRACEACT_PRINTA: {
        const { ids, consumed } = printaIds(recs, i, data);
        out.printa(r, ids);
        i += consumed - 1;
        break;
      }
      case D.DTRACEACT_LIBACT:
        if (r.arg === BigInt(D.DT_ACT_FTRUNCATE)) {
          out.ftruncate?.(r);
          break;
        }
        if (isSetoptRecord(r)) {
          const { option, value, consumed } = setoptArgs(recs, i, data);
          out.setopt(r, option, value);
          i += consumed - 1;
          break;
        }
        i += aggregationAction(aggs, recs, i, data) - 1;
        break;
      case D.DTRACEACT_TRACEMEM_DYNSIZE:
        tracememSize = Number(BigInt.asUintN(64, data.readBigInt64LE(r.offset)));
        break;
      case D.DTRACEACT_TRACEMEM: {
        // The dynamic size, when given, shows fewer of the traced bytes (never more).
        const n = tracememSize > 0 && tracememSize < r.size ? tracememSize : r.size;
        out.tracemem(r, data.subarray(r.offset, r.offset + n));
        tracememSize = 0;
        break;
      }
      case D.DTRACEACT_EXIT: {
        const v = decode(r, data);
        out.exit(r, v.kind === 'int' ? Number(v.value) : 0);
        break;
      }
      default:
        if (isSymbolicAction(r.action)) out.symbolic(r, data);
        break;
    }
  }
}

/**
 * The text of a record whose every action is a printf() that planPrintf compiles (expression
 * statements aside), made straight from its bytes: the text consumer makes it once per enabled
 * probe, and prints such records without walking their actions. null: walk them.
 */
export function planActions(recs: RecordDescription[]): RecordPlan | null {
  const plans: RecordPlan[] = [];
  for (let i = 0; i < recs.length; i++) {
    const r = recs[i];
    if (r.action === D.DTRACEACT_DIFEXPR && r.size === 0) continue;
    if (r.action !== D.DTRACEACT_PRINTF) return null;
    let found: { args: RecordDescription[]; last: number };
    try {
      found = printfArgRecords(recs, i);
    } catch {
      return null; // a format the walk reports
    }
    const { args, last } = found;
    const plan = planPrintf(r.format ?? '', args);
    if (plan === null) return null;
    plans.push(plan);
    i = last;
  }
  if (plans.length === 1) return plans[0];
  return (buf, base) => {
    let out = '';
    for (const p of plans) out += p(buf, base);
    return out;
  };
}
