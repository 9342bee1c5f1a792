// String temporaries ("tstrings"): the strings a DIF object's subroutine calls produce (strjoin,
// substr, basename, ...) live in a pool of strsize slots in mem, reused as expressions finish, as
// DTrace reuses its temporary string slots. A slot is taken at the call that produces the string
// and given back after the last instruction that can still read it, found by following the value
// through the DIF object: registers it is copied or added to (strstr() and pointer arithmetic
// give addresses inside it), the tuple stack while it is pushed there. DIF branches only go
// forward, so one pass in program order sees every way into an instruction before it.
//
// A DIF object's strings are consumed before the next one runs (a record, a key or a variable
// copies them by value), so every DIF object starts with the whole pool free: a clause needs as
// many slots as its busiest DIF object, whatever the number of string operations in it.
//
// The device sizes the pool from the same analysis before it lays mem out (poolSlots), and the
// translator asks for the slot of each call as it emits it (ProbeTranslator.stringSlot).

import * as D from '../../dif/constants.js';
import type { EcbDescription } from '../../dof/program.js';
import type { Difo } from '../../dif/difo.js';

/**
 * Subroutines whose result is a string built in the clause's memory (each takes a slot). Not
 * copyin(): its result is a pointer a clause-local may keep for later actions; nor strtok(),
 * whose copy strtok(NULL, ...) goes on reading in later statements: both keep memory of their
 * own for the whole clause.
 */
export const STRING_RESULT_SUBRS: ReadonlySet<number> = new Set([
  D.DIF_SUBR_STRJOIN, D.DIF_SUBR_SUBSTR, D.DIF_SUBR_TOUPPER, D.DIF_SUBR_TOLOWER,
  D.DIF_SUBR_LLTOSTR, D.DIF_SUBR_BASENAME, D.DIF_SUBR_DIRNAME, D.DIF_SUBR_CLEANPATH,
  D.DIF_SUBR_COPYINSTR, D.DIF_SUBR_INET_NTOA, D.DIF_SUBR_INET_NTOA6,
  D.DIF_SUBR_INET_NTOP, D.DIF_SUBR_JSON, D.DIF_SUBR_MEMSTR,
]);

/** Bytes of one slot: strsize and a NUL, and never less than lltostr()'s 72. */
export function slotSize(strsize: number): number {
  return Math.ceil(Math.max(strsize + 1, 72) / 8) * 8;
}

export interface SlotPlan {
  /** The slot of each string-producing CALL, by its DIF pc. */
  slotOf: Map<number, number>;
  /** Slots this DIF object needs at once. */
  count: number;
}

const plans = new WeakMap<Difo, SlotPlan>();

const NO_READS = new Set([
  D.DIF_OP_BA, D.DIF_OP_BE, D.DIF_OP_BNE, D.DIF_OP_BG, D.DIF_OP_BGU, D.DIF_OP_BGE, D.DIF_OP_BGEU,
  D.DIF_OP_BL, D.DIF_OP_BLU, D.DIF_OP_BLE, D.DIF_OP_BLEU, D.DIF_OP_NOP, D.DIF_OP_SETX, D.DIF_OP_SETS,
  D.DIF_OP_LDGS, D.DIF_OP_LDTS, D.DIF_OP_LDLS, D.DIF_OP_LDGA, D.DIF_OP_LDTA, D.DIF_OP_LDGAA,
  D.DIF_OP_LDTAA, D.DIF_OP_CALL, D.DIF_OP_POPTS, D.DIF_OP_FLUSHTS,
]);
const READS_RD = new Set([D.DIF_OP_STGS, D.DIF_OP_STTS, D.DIF_OP_STLS, D.DIF_OP_STGAA, D.DIF_OP_STTAA, D.DIF_OP_RET]);
const NO_WRITE = new Set([
  ...READS_RD, D.DIF_OP_CMP, D.DIF_OP_TST, D.DIF_OP_SCMP, D.DIF_OP_NOP, D.DIF_OP_BA, D.DIF_OP_BE,
  D.DIF_OP_BNE, D.DIF_OP_BG, D.DIF_OP_BGU, D.DIF_OP_BGE, D.DIF_OP_BGEU, D.DIF_OP_BL, D.DIF_OP_BLU,
  D.DIF_OP_BLE, D.DIF_OP_BLEU, D.DIF_OP_PUSHTR, D.DIF_OP_PUSHTV, D.DIF_OP_POPTS, D.DIF_OP_FLUSHTS,
  D.DIF_OP_STB, D.DIF_OP_STH, D.DIF_OP_STW, D.DIF_OP_STX, D.DIF_OP_COPYS,
]);
const LOADS_VALUE = new Set([
  D.DIF_OP_LDSB, D.DIF_OP_LDSH, D.DIF_OP_LDSW, D.DIF_OP_LDUB, D.DIF_OP_LDUH, D.DIF_OP_LDUW, D.DIF_OP_LDX,
  D.DIF_OP_ULDSB, D.DIF_OP_ULDSH, D.DIF_OP_ULDSW, D.DIF_OP_ULDUB, D.DIF_OP_ULDUH, D.DIF_OP_ULDUW, D.DIF_OP_ULDX,
  D.DIF_OP_RLDSB, D.DIF_OP_RLDSH, D.DIF_OP_RLDSW, D.DIF_OP_RLDUB, D.DIF_OP_RLDUH, D.DIF_OP_RLDUW, D.DIF_OP_RLDX,
]);

type Taint = ReadonlySet<number>; // the producing pcs whose strings a value may point into
const NONE: Taint = new Set();
const union = (a: Taint, b: Taint): Taint => (a.size === 0 ? b : b.size === 0 ? a : new Set([...a, ...b]));

interface State { regs: Taint[]; tuple: Taint[] }

/** The slots of one DIF object's string-producing calls (computed once per DIF object). */
export function slotPlan(difo: Difo): SlotPlan {
  let plan = plans.get(difo);
  if (plan) return plan;
  const insns = difo.insns;
  const incoming = new Map<number, State[]>();
  const lastUse = new Map<number, number>();
  const producers: number[] = [];
  let cur: State | null = { regs: Array.from({ length: D.DIF_DIR_NREGS }, () => NONE), tuple: [] };
  const merge = (states: State[]): State => {
    const regs = states[0].regs.slice(), tuple = states[0].tuple.slice();
    for (const s of states.slice(1)) {
      s.regs.forEach((t, i) => (regs[i] = union(regs[i], t)));
      s.tuple.forEach((t, i) => (tuple[i] = union(tuple[i] ?? NONE, t)));
    }
    return { regs, tuple };
  };
  insns.forEach((ins, pc) => {
    const from = incoming.get(pc) ?? [];
    if (cur) from.push(cur);
    if (from.length === 0) { cur = null; return; } // unreachable
    const s = merge(from);
    const op = (ins >>> 24) & 0xff, r1 = (ins >>> 16) & 0xff, r2 = (ins >>> 8) & 0xff, rd = ins & 0xff;
    const reg = (r: number): Taint => (r > 0 && r < s.regs.length ? s.regs[r] : NONE);
    const use = (t: Taint) => { for (const p of t) lastUse.set(p, pc); };
    // What this instruction reads keeps those strings alive to here; so does the tuple stack.
    let reads: Taint[];
    if (NO_READS.has(op)) reads = [];
    else if (READS_RD.has(op)) reads = [reg(rd)];
    else if (op === D.DIF_OP_PUSHTR || op === D.DIF_OP_PUSHTV) reads = [reg(r2), reg(rd)];
    else if (op >= D.DIF_OP_STB && op <= D.DIF_OP_STX || op === D.DIF_OP_COPYS) reads = [reg(r1), reg(r2), reg(rd)];
    else if (op === D.DIF_OP_NOT || op === D.DIF_OP_MOV || op === D.DIF_OP_TST || op === D.DIF_OP_ALLOCS || LOADS_VALUE.has(op)) reads = [reg(r1)];
    else reads = [reg(r1), reg(r2)];
    reads.forEach(use);
    s.tuple.forEach(use);
    if (op === D.DIF_OP_PUSHTR || op === D.DIF_OP_PUSHTV) s.tuple.push(reg(rd));
    else if (op === D.DIF_OP_POPTS) s.tuple.pop();
    else if (op === D.DIF_OP_FLUSHTS) s.tuple.length = 0;
    if (!NO_WRITE.has(op) && rd > 0 && rd < s.regs.length) {
      let out: Taint = NONE;
      if (op === D.DIF_OP_CALL) {
        // A string result is this call's own slot; any other result may point into the
        // arguments (strstr, strchr, strrchr, ...).
        if (STRING_RESULT_SUBRS.has((ins >>> 8) & 0xffff)) out = new Set([pc]), producers.push(pc);
        else for (const t of s.tuple) out = union(out, t);
      } else if (!LOADS_VALUE.has(op)) out = reads.reduce(union, NONE);
      s.regs[rd] = out;
    }
    const branch = op >= D.DIF_OP_BA && op <= D.DIF_OP_BLEU;
    if (branch) {
      const target = ins & 0xffffff;
      if (target > pc) (incoming.get(target) ?? incoming.set(target, []).get(target)!).push({ regs: s.regs.slice(), tuple: s.tuple.slice() });
    }
    cur = op === D.DIF_OP_BA || op === D.DIF_OP_RET ? null : s;
  });
  // Take the lowest free slot at each producer, after giving back those whose string is dead.
  const slotOf = new Map<number, number>();
  const busy: (number | null)[] = []; // slot -> producer holding it
  for (const pc of producers) {
    busy.forEach((p, i) => { if (p !== null && (lastUse.get(p) ?? p) < pc) busy[i] = null; });
    let slot = busy.indexOf(null);
    if (slot < 0) slot = busy.push(null) - 1;
    busy[slot] = pc;
    slotOf.set(pc, slot);
  }
  plan = { slotOf, count: busy.length };
  plans.set(difo, plan);
  return plan;
}

/** Slots the busiest DIF object of these ECBs needs (the size of the pool, in slots). */
export function poolSlots(ecbs: readonly EcbDescription[]): number {
  let max = 0;
  for (const ecb of ecbs) {
    for (const difo of [ecb.predicate, ...ecb.actions.map((x) => x.difo)]) if (difo) max = Math.max(max, slotPlan(difo).count);
  }
  return max;
}

/** alloca() and copyin() call sites in one ECB (each takes a static strsize slot of DTrace's scratch). */
export function allocaSites(ecb: EcbDescription): number {
  let n = 0;
  for (const difo of [ecb.predicate, ...ecb.actions.map((x) => x.difo)]) {
    for (const ins of difo?.insns ?? []) {
      const subr = (ins >>> 8) & 0xffff;
      if (((ins >>> 24) & 0xff) === D.DIF_OP_CALL && (subr === D.DIF_SUBR_ALLOCA || subr === D.DIF_SUBR_COPYIN)) n++;
    }
  }
  return n;
}
