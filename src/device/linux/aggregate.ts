// Aggregations in eBPF: value layouts, initial values, and the update an aggregating action emits.
//
// Each aggregation has a per-CPU map (translate.ts's AggregationMap): an array element when it
// has no keys and starts from zero, else a hash keyed by the tuple. Aggregations of one kind and
// key shape share one map (the device groups them): an array of one element each, or a hash
// whose key ends with the aggregation's id, so a program may hold hundreds of aggregations
// under the kernel's 64 maps. A value holds, as
// u64 words:
//   count, sum             one word
//   min, max               the value, then a word that is 1 once this CPU saw a value (a new
//                          per-CPU hash entry is zero on every other CPU, so the consumer must
//                          know which CPUs hold a value)
//   avg                    count, total
//   stddev                 count, total, sum of squares (128 bits: low word, high word)
//   quantize               127 power-of-two buckets (bucket 63 holds 0)
//   lquantize              levels + 2 buckets: below base, one per step, at or above the limit
//   llquantize             symmetric about zero (buckets.ts): <= -top, the negative steps, |v| <
//                          factor^low, the positive steps, >= top
// A distribution whose value is larger than a per-CPU map allows (PERCPU_VALUE_MAX) is kept
// once for all CPUs, in a plain map, its buckets added to atomically (AggregationMap.oneCopy).
// The consumer merges CPUs (dif/aggdata.ts). New hash entries are inserted from their initial
// value, kept in an array map; an insert that fails (the map holds what `aggsize` allows) counts
// one aggregation drop on this CPU. An aggregation clear() or trunc() names is updated in the map
// its one-slot map of maps holds at the time (agg-switch.ts).

import * as D from '../../dif/constants.js';
import type { ActionDescription } from '../../dof/program.js';
import { QUANTIZE_NBUCKETS, QUANTIZE_ZEROBUCKET, llquantizeBounds, llquantizeBucketCount } from '../../dif/buckets.js';
import { ALU, FP, HELPER, JMP, R0, R1, R2, R3, R4, R5, R8, BPF_NOEXIST } from './bpf-asm.js';
import { AGG_MAP, type ProbeTranslator, TMP, TranslateError, ZERO_KEY, isAggregation, roundUp } from './translate.js';

/** Bytes of one CPU's value for an aggregating action. */
export function aggValueSize(kind: number, arg: bigint): number {
  return 8 * aggValueWords(kind, arg);
}

function aggValueWords(kind: number, arg: bigint): number {
  switch (kind) {
    case D.DTRACEAGG_AVG: return 2;
    case D.DTRACEAGG_MIN: case D.DTRACEAGG_MAX: return 2;
    case D.DTRACEAGG_STDDEV: return 4;
    case D.DTRACEAGG_QUANTIZE: return QUANTIZE_NBUCKETS;
    case D.DTRACEAGG_LQUANTIZE: return D.unpackLquantizeArg(arg).levels + 2;
    case D.DTRACEAGG_LLQUANTIZE: return llquantizeBucketCount(D.unpackLlquantizeArg(arg));
    default: return 1;
  }
}

/** The value a new entry starts from (all zero: min and max start with their flag clear). */
export function aggInitialValue(kind: number, valueSize: number): Buffer {
  void kind;
  return Buffer.alloc(valueSize);
}

/** Does this aggregation need a hash map? Only for keys: keyless ones are one array element. */
export function aggIsKeyed(kind: number, nkeys: number): boolean {
  void kind;
  return nkeys > 0;
}

/**
 * Is action i the increment argument of the aggregating action after it? libdtrace places it
 * last in the tuple as a void-typed expression; keys can never be void.
 */
export function isAggIncrement(acts: ActionDescription[], i: number): boolean {
  const act = acts[i], next = acts[i + 1];
  return (
    act.kind === D.DTRACEACT_DIFEXPR && next !== undefined && isAggregation(next.kind) && next.ntuple > 0 &&
    act.difo !== null && act.difo.rtype.kind === D.DIF_TYPE_CTF && act.difo.rtype.size === 0
  );
}

/** Number of real keys of the aggregating action at index i. */
export function aggKeyCount(acts: ActionDescription[], i: number): number {
  return acts[i].ntuple - (i > 0 && isAggIncrement(acts, i - 1) ? 1 : 0);
}

/**
 * Update the aggregation of the aggregating action acts[i] with the value in R0; the tuple's
 * keys are at mem.key and the increment (when there is one) at mem.aggIncr.
 */
export function translateAggregation(t: ProbeTranslator, acts: ActionDescription[], i: number): void {
  const a = t.a, env = t.env, mem = env.mem;
  const act = acts[i];
  const kind = act.kind;
  const agg = env.aggregations.get(act.uarg);
  if (!agg) throw new TranslateError(`no map for aggregation ${act.uarg}`, t.ecbIndex, t.actionIndex);
  const hasIncr = i > 0 && isAggIncrement(acts, i - 1);
  a.stx(8, FP, TMP, R0);
  const bucketed = kind === D.DTRACEAGG_QUANTIZE || kind === D.DTRACEAGG_LQUANTIZE || kind === D.DTRACEAGG_LLQUANTIZE;
  if (bucketed && !hasIncr) a.st(8, R8, mem.aggIncr, 1);
  if (agg.keyed && aggKeyCount(acts, i) === 0) a.zero(R8, mem.key, roundUp(agg.keySize, 8));

  const found = a.label('agg.found');
  const done = a.label('agg.done');
  // A switched aggregation's map is the one in its outer map's slot now; the consumer switches
  // it only once no program runs that could still write the other (agg-switch.ts).
  const outer = agg.outerFd;
  if (outer !== undefined) {
    a.st(4, FP, ZERO_KEY, 0);
    a.ldMap(R1, outer);
    a.mov(R2, FP);
    a.aluImm(ALU.ADD, R2, ZERO_KEY);
    a.call(HELPER.map_lookup_elem);
    a.jmpImm(JMP.JEQ, R0, 0, done);
    a.stx(8, FP, AGG_MAP, R0);
  }
  const map = () => (outer === undefined ? a.ldMap(R1, agg.fd) : a.ldx(8, R1, FP, AGG_MAP));
  // DIF loads use the stack slot of the zero key as a temporary: store the key again (the
  // aggregation's element in an array it shares, put back to zero after the update).
  const index = agg.shared && 'index' in agg.shared ? agg.shared.index : 0;
  if (!agg.keyed) a.st(4, FP, ZERO_KEY, index);
  // A hash shared by several aggregations: this one's id after the tuple.
  if (agg.shared && 'id' in agg.shared) a.st(8, R8, mem.key + agg.keySize, agg.shared.id);
  const lookup = () => {
    map();
    a.mov(R2, agg.keyed ? R8 : FP);
    a.aluImm(ALU.ADD, R2, agg.keyed ? mem.key : ZERO_KEY);
    a.call(HELPER.map_lookup_elem);
  };
  lookup();
  a.jmpImm(JMP.JNE, R0, 0, found);
  if (!agg.keyed) a.ja(done);
  else if (agg.noRoom) {
    countDrop(t);
    a.ja(done);
  } else {
    // A new key: insert its initial value, then look it up again; a failed insert is a drop.
    map();
    a.mov(R2, R8);
    a.aluImm(ALU.ADD, R2, mem.key);
    a.ldMapValue(R3, env.aggInitFd, agg.initOffset);
    a.movImm(R4, BPF_NOEXIST);
    a.call(HELPER.map_update_elem);
    lookup();
    a.jmpImm(JMP.JNE, R0, 0, found);
    countDrop(t);
    a.ja(done);
  }
  a.place(found);
  a.ldx(8, R1, FP, TMP);
  switch (kind) {
    case D.DTRACEAGG_COUNT:
      a.ldx(8, R2, R0, 0), a.aluImm(ALU.ADD, R2, 1), a.stx(8, R0, 0, R2);
      break;
    case D.DTRACEAGG_SUM:
      a.ldx(8, R2, R0, 0), a.alu(ALU.ADD, R2, R1), a.stx(8, R0, 0, R2);
      break;
    case D.DTRACEAGG_MIN:
    case D.DTRACEAGG_MAX: {
      const keep = a.label('agg.keep'), take = a.label('agg.take');
      a.ldx(8, R2, R0, 8);
      a.jmpImm(JMP.JEQ, R2, 0, take);
      a.ldx(8, R2, R0, 0);
      a.jmp(kind === D.DTRACEAGG_MIN ? JMP.JSLE : JMP.JSGE, R2, R1, keep);
      a.place(take);
      a.stx(8, R0, 0, R1);
      a.st(8, R0, 8, 1);
      a.place(keep);
      break;
    }
    case D.DTRACEAGG_AVG:
      a.ldx(8, R2, R0, 0), a.aluImm(ALU.ADD, R2, 1), a.stx(8, R0, 0, R2);
      a.ldx(8, R2, R0, 8), a.alu(ALU.ADD, R2, R1), a.stx(8, R0, 8, R2);
      break;
    case D.DTRACEAGG_STDDEV:
      stddev(t);
      break;
    case D.DTRACEAGG_QUANTIZE:
      quantizeBucket(t);
      bucketAdd(t, QUANTIZE_NBUCKETS, agg.oneCopy);
      break;
    case D.DTRACEAGG_LQUANTIZE: {
      const p = D.unpackLquantizeArg(act.arg);
      lquantizeBucket(t, p.base, p.step, p.levels);
      bucketAdd(t, p.levels + 2, agg.oneCopy);
      break;
    }
    case D.DTRACEAGG_LLQUANTIZE: {
      // R3 := how many bounds |value| reaches (k); the bucket is zero + k, or zero - k for a
      // negative value (R2 says which). -INT64_MIN stays negative: it is beyond every bound.
      const bounds = llquantizeBounds(D.unpackLlquantizeArg(act.arg));
      const zero = bounds.length;
      const settled = a.label('llq.bucket'), pos = a.label('llq.pos'), neg = a.label('llq.neg'), placed = a.label('llq.placed');
      a.movImm(R2, 0);
      a.jmpImm(JMP.JSGE, R1, 0, pos);
      a.aluImm(ALU.NEG, R1, 0);
      a.movImm(R2, 1);
      a.jmpImm(JMP.JSGE, R1, 0, pos);
      a.ld64(R1, 0x7fffffffffffffffn);
      a.place(pos);
      thresholdSearch(t, bounds, 0, bounds.length, settled);
      a.place(settled);
      a.jmpImm(JMP.JNE, R2, 0, neg);
      a.aluImm(ALU.ADD, R3, zero);
      a.ja(placed);
      a.place(neg);
      a.movImm(R4, zero);
      a.alu(ALU.SUB, R4, R3);
      a.mov(R3, R4);
      a.place(placed);
      bucketAdd(t, 2 * zero + 1, agg.oneCopy);
      break;
    }
    default:
      throw new TranslateError(`aggregating action ${kind.toString(16)} is not supported`, t.ecbIndex, t.actionIndex);
  }
  a.place(done);
  if (index !== 0) a.st(4, FP, ZERO_KEY, 0);
}

/** One more aggregation drop on this CPU. */
function countDrop(t: ProbeTranslator): void {
  const a = t.a, env = t.env;
  if (env.aggDropsFd === undefined) return;
  const skip = a.label('agg.nodrops');
  a.st(4, FP, ZERO_KEY, 0);
  a.ldMap(R1, env.aggDropsFd);
  a.mov(R2, FP);
  a.aluImm(ALU.ADD, R2, ZERO_KEY);
  a.call(HELPER.map_lookup_elem);
  a.jmpImm(JMP.JEQ, R0, 0, skip);
  a.ldx(8, R1, R0, 0), a.aluImm(ALU.ADD, R1, 1), a.stx(8, R0, 0, R1);
  a.place(skip);
}

/**
 * stddev: count, total and the 128-bit sum of squares of |value| (value in R1, entry in R0).
 * |v|^2 = aH^2 * 2^64 + 2 * aH * aL * 2^32 + aL^2 with 32-bit halves aH, aL.
 */
function stddev(t: ProbeTranslator): void {
  const a = t.a;
  a.ldx(8, R2, R0, 0), a.aluImm(ALU.ADD, R2, 1), a.stx(8, R0, 0, R2);
  a.ldx(8, R2, R0, 8), a.alu(ALU.ADD, R2, R1), a.stx(8, R0, 8, R2);
  const pos = a.label('sd.pos');
  a.jmpImm(JMP.JSGE, R1, 0, pos);
  a.aluImm(ALU.NEG, R1, 0);
  a.place(pos);
  a.mov32(R2, R1); // aL
  a.mov(R3, R1), a.aluImm(ALU.RSH, R3, 32); // aH
  a.mov(R4, R2), a.alu(ALU.MUL, R4, R2); // lo = aL*aL
  a.mov(R5, R2), a.alu(ALU.MUL, R5, R3); // cross = aL*aH
  a.alu(ALU.MUL, R3, R3); // hi = aH*aH
  for (let k = 0; k < 2; k++) {
    const nc = a.label('sd.nocarry');
    a.mov(R2, R5), a.aluImm(ALU.LSH, R2, 32);
    a.alu(ALU.ADD, R4, R2);
    a.jmp(JMP.JGE, R4, R2, nc);
    a.aluImm(ALU.ADD, R3, 1);
    a.place(nc);
  }
  a.aluImm(ALU.RSH, R5, 32);
  a.alu(ALU.ADD, R3, R5), a.alu(ALU.ADD, R3, R5);
  // data[2..3] += (hi, lo)
  const nc = a.label('sd.nocarry');
  a.ldx(8, R1, R0, 16), a.alu(ALU.ADD, R1, R4), a.stx(8, R0, 16, R1);
  a.jmp(JMP.JGE, R1, R4, nc);
  a.aluImm(ALU.ADD, R3, 1);
  a.place(nc);
  a.ldx(8, R2, R0, 24), a.alu(ALU.ADD, R2, R3), a.stx(8, R0, 24, R2);
}

/** R3 = floor(log2(R2)) for R2 > 0, by halving the width six times (no loop). Uses R4. */
function log2(t: ProbeTranslator): void {
  const a = t.a;
  a.movImm(R3, 0);
  for (const s of [32, 16, 8, 4, 2, 1]) {
    const skip = a.label('log2.skip');
    a.mov(R4, R2), a.aluImm(ALU.RSH, R4, s);
    a.jmpImm(JMP.JEQ, R4, 0, skip);
    a.mov(R2, R4), a.aluImm(ALU.ADD, R3, s);
    a.place(skip);
  }
}

/** R3 = quantize bucket of the value in R1: 63 for 0, 64 + log2(v) above, 62 - log2(-v) below. */
function quantizeBucket(t: ProbeTranslator): void {
  const a = t.a;
  const zero = QUANTIZE_ZEROBUCKET;
  const neg = a.label('q.neg'), settled = a.label('q.settled'), magnitude = a.label('q.mag');
  a.movImm(R3, zero);
  a.jmpImm(JMP.JEQ, R1, 0, settled);
  a.mov(R2, R1);
  a.jmpImm(JMP.JSGT, R1, 0, magnitude);
  a.aluImm(ALU.NEG, R2, 0);
  a.place(magnitude);
  log2(t);
  a.jmpImm(JMP.JSLT, R1, 0, neg);
  a.aluImm(ALU.ADD, R3, zero + 1);
  a.ja(settled);
  a.place(neg);
  a.mov(R4, R3);
  a.movImm(R3, zero - 1);
  a.alu(ALU.SUB, R3, R4);
  a.jmpImm(JMP.JSGE, R3, 0, settled);
  a.movImm(R3, 0); // -2^63: below the lowest bucket's bound
  a.place(settled);
}

/** R3 = lquantize bucket of the value in R1. */
function lquantizeBucket(t: ProbeTranslator, base: number, step: number, levels: number): void {
  const a = t.a;
  const settled = a.label('lq.settled'), under = a.label('lq.under'), inside = a.label('lq.inside');
  a.jmpImm(JMP.JSLT, R1, base, under);
  a.mov(R3, R1);
  a.aluImm(ALU.SUB, R3, base);
  a.aluImm(ALU.DIV, R3, step);
  a.jmpImm(JMP.JLT, R3, levels, inside);
  a.movImm(R3, levels + 1);
  a.ja(settled);
  a.place(inside);
  a.aluImm(ALU.ADD, R3, 1);
  a.ja(settled);
  a.place(under);
  a.movImm(R3, 0);
  a.place(settled);
}

/**
 * R3 = how many of bounds[lo..hi) are <= the value in R1, given the answer lies in [lo, hi]:
 * an unrolled binary search (the llquantize bucket).
 */
function thresholdSearch(t: ProbeTranslator, bounds: bigint[], lo: number, hi: number, settled: ReturnType<ProbeTranslator['a']['label']>): void {
  const a = t.a;
  if (lo === hi) {
    a.movImm(R3, lo);
    a.ja(settled);
    return;
  }
  const mid = (lo + hi + 1) >> 1;
  const right = a.label('llq.right');
  a.ld64(R4, bounds[mid - 1]);
  a.jmp(JMP.JSGE, R1, R4, right);
  thresholdSearch(t, bounds, lo, mid - 1, settled);
  a.place(right);
  thresholdSearch(t, bounds, mid, hi, settled);
}

/** entry (R0) bucket R3 += increment, with R3 bounded for the verifier; atomically in a value all CPUs share. */
function bucketAdd(t: ProbeTranslator, nbuckets: number, atomic = false): void {
  const a = t.a, mem = t.env.mem;
  const ok = a.label('bucket.ok');
  a.jmpImm(JMP.JLE, R3, nbuckets - 1, ok);
  a.movImm(R3, nbuckets - 1);
  a.place(ok);
  a.aluImm(ALU.LSH, R3, 3);
  a.alu(ALU.ADD, R0, R3);
  a.ldx(8, R2, R8, mem.aggIncr);
  if (atomic) a.atomicAdd(R0, 0, R2);
  else a.ldx(8, R1, R0, 0), a.alu(ALU.ADD, R1, R2), a.stx(8, R0, 0, R1);
}
