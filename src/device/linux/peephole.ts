// Clean-up passes over a translated program, run before it is encoded (translate.ts).
//
// The translator emits each piece the simple way: a prologue that publishes every value a clause
// might need, stack slots zeroed up front so the verifier accepts any read, arguments loaded
// whether or not a clause reads them. These passes drop what this particular program never uses:
//   unreadMemStores   stores into per-CPU scratch slots (string table base, args[], ...) that no
//                     instruction ever reads;
//   redundantZeroing  zeroing of a stack slot that is written on every path before each read;
//   deadCode          side-effect-free instructions whose result no later instruction reads.
// Each pass is conservative: an instruction it does not understand counts as reading everything.

import {
  ALU, BPF_ALU, BPF_ALU64, BPF_DW, BPF_JMP, BPF_JMP32, BPF_LD, BPF_LDX, BPF_MEM, BPF_ST, BPF_STX, BPF_X,
  type BpfAsm, FP, HELPER, type Insn, JMP, R8,
} from './bpf-asm.js';

const cls = (ins: Readonly<Insn>) => ins.code & 0x07;
const isLd64 = (ins: Readonly<Insn>) => ins.code === (BPF_LD | BPF_DW);
const SIZE_BYTES: Record<number, number> = { 0x00: 4, 0x08: 2, 0x10: 1, 0x18: 8 };
const bytes = (ins: Readonly<Insn>) => SIZE_BYTES[ins.code & 0x18];
const ALL_REGS = 0x7ff;
const bit = (r: number) => 1 << r;

/** Run every pass; returns how many instructions were removed. */
export function optimize(a: BpfAsm, o: { self: number; memSlots: { off: number; size: number }[]; stackZeroing: number[] }): number {
  if (!cleanJumps(a)) return 0;
  const start = a.list.length;
  const drop = new Set<number>([...unreadMemStores(a, o.self, o.memSlots), ...redundantZeroing(a, o.stackZeroing)]);
  if (drop.size) a.remove(drop);
  forwardStackLoads(a);
  shortConstants(a);
  for (let round = 0; round < 8; round++) {
    // Stores nobody reads go first, so what only they read is found dead in the same round.
    const stores = unreadStackStores(a);
    const dead = new Set([...stores, ...deadCode(a, stores), ...jumpsToNext(a)]);
    if (dead.size === 0) coalesceMoves(a, dead);
    if (dead.size === 0) break;
    a.remove(dead);
  }
  return start - a.list.length;
}

/** Every jump goes through a label (a fixed offset would break when instructions move). */
function cleanJumps(a: BpfAsm): boolean {
  return a.list.every((ins) => {
    const c = cls(ins), op = ins.code & 0xf0;
    return !(c === BPF_JMP || c === BPF_JMP32) || op === JMP.CALL || op === JMP.EXIT || ins.label !== undefined;
  });
}

/** Successors of instruction i (a 64-bit load is one instruction in two slots). */
function successors(list: readonly Readonly<Insn>[], i: number): number[] {
  const ins = list[i];
  const c = cls(ins), op = ins.code & 0xf0;
  if (isLd64(ins)) return [i + 2];
  if (c !== BPF_JMP && c !== BPF_JMP32) return [i + 1];
  if (op === JMP.EXIT) return [];
  if (op === JMP.CALL) return [i + 1];
  if (op === JMP.JA) return [ins.label!.at];
  return [i + 1, ins.label!.at];
}

/** Instruction starts (skipping the second slot of 64-bit loads). */
function starts(list: readonly Readonly<Insn>[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < list.length; i++) {
    out.push(i);
    if (isLd64(list[i])) i++;
  }
  return out;
}

/**
 * Offsets K of the pointers formed from `base` -- "rX = base; rX += K", or "rX = base;
 * rX += rY; load/store [rX + K]" for an indexed access from K on -- or null when base is used
 * any other way than as the base of a load or store (then anything may be read). With `self`,
 * loads of the scalar copy of r8 kept at [r8 + self] count as copies of base too.
 */
function pointersFrom(list: readonly Readonly<Insn>[], base: number, self?: number): number[] | null {
  const out: number[] = [];
  for (const i of starts(list)) {
    const ins = list[i], c = cls(ins);
    const copy = (c === BPF_ALU64 && ins.code === (BPF_ALU64 | ALU.MOV | BPF_X) && ins.src === base && ins.off === 0) ||
      (self !== undefined && c === BPF_LDX && ins.src === base && ins.off === self && ins.code === (BPF_LDX | BPF_MEM | BPF_DW));
    if (copy) {
      const next = list[i + 1], then = list[i + 2];
      if (next && next.code === (BPF_ALU64 | ALU.ADD) && next.dst === ins.dst) out.push(next.imm);
      else if (next && next.code === (BPF_ALU64 | ALU.ADD | BPF_X) && next.dst === ins.dst && then &&
        (cls(then) === BPF_LDX ? then.src : then.dst) === ins.dst && [BPF_LDX, BPF_ST, BPF_STX].includes(cls(then))) out.push(then.off);
      else return null;
      continue;
    }
    if (c === BPF_LDX || c === BPF_ST || c === BPF_JMP || c === BPF_JMP32) continue;
    if (c === BPF_STX) {
      if ((ins.code & 0xe0) !== BPF_MEM) { if (ins.dst === base || ins.src === base) return null; }
      else if (ins.src === base && !(self !== undefined && ins.dst === base && ins.off === self)) return null;
      continue;
    }
    if ((c === BPF_ALU || c === BPF_ALU64) && (ins.code & BPF_X) && ins.src === base) return null;
  }
  return out;
}

/** Stores into scratch slots [off, off + size) of r8 that nothing reads. */
function unreadMemStores(a: BpfAsm, self: number, slots: { off: number; size: number }[]): number[] {
  const list = a.list;
  const ptrs = pointersFrom(list, R8, self);
  if (!ptrs) return [];
  const read = (s: { off: number; size: number }) =>
    ptrs.some((k) => k < s.off + s.size) ||
    list.some((ins) => {
      const c = cls(ins);
      const based = (c === BPF_LDX && ins.src === R8) || (c === BPF_STX && (ins.code & 0xe0) !== BPF_MEM && ins.dst === R8);
      return based && ins.off < s.off + s.size && ins.off + bytes(ins) > s.off;
    });
  const dead = slots.filter((s) => !read(s));
  const out: number[] = [];
  list.forEach((ins, i) => {
    const c = cls(ins);
    if ((c === BPF_ST || (c === BPF_STX && (ins.code & 0xe0) === BPF_MEM)) && ins.dst === R8 &&
        dead.some((s) => ins.off >= s.off && ins.off + bytes(ins) <= s.off + s.size)) out.push(i);
  });
  return out;
}

/**
 * Zeroing stores (8 bytes at fp+off) whose slot is, on every path, written again before it is
 * read: the verifier needs no zero there. Reads are loads from the slot and pointers to it.
 */
function redundantZeroing(a: BpfAsm, zeroing: number[]): number[] {
  const list = a.list, n = list.length;
  if (zeroing.length === 0) return [];
  const ptrs = pointersFrom(list, FP);
  if (!ptrs) return [];
  // The 64 slots of 8 bytes (fp-8..fp-1 -> 0, fp-16..fp-9 -> 1, ...) as two 32-bit words.
  const slotOf = (off: number) => Math.floor((-off - 1) / 8);
  const isZeroing = new Uint8Array(n);
  for (const i of zeroing) isZeroing[i] = 1;
  // Per instruction: the slots it reads (a load, an atomic, or a pointer "rX = fp; rX += K" to
  // 8 bytes at K) and the slot it surely writes (an aligned 8-byte store other than a zeroing).
  const reads = new Uint32Array(2 * n), writes = new Int8Array(n).fill(-1);
  const readSpan = (i: number, off: number, size: number) => {
    for (let b = off; b < off + size && b < 0; b++) {
      const s = slotOf(b);
      if (s < 64) reads[2 * i + (s >> 5)] |= 1 << (s & 31);
    }
  };
  for (const i of starts(list)) {
    const ins = list[i], c = cls(ins);
    if (c === BPF_LDX && ins.src === FP) readSpan(i, ins.off, bytes(ins));
    else if (c === BPF_STX && (ins.code & 0xe0) !== BPF_MEM && ins.dst === FP) readSpan(i, ins.off, bytes(ins));
    else if (!isZeroing[i] && (c === BPF_ST || (c === BPF_STX && (ins.code & 0xe0) === BPF_MEM)) && ins.dst === FP &&
        bytes(ins) === 8 && ins.off % 8 === 0 && slotOf(ins.off) < 64) writes[i] = slotOf(ins.off);
    if (ins.code === (BPF_ALU64 | ALU.MOV | BPF_X) && ins.src === FP && i + 1 < n) readSpan(i + 1, list[i + 1].imm, 8);
  }
  // Forward "surely written" sets of slots, meeting by intersection, from nothing at the entry.
  const inSets = new Uint32Array(2 * n).fill(0xffffffff);
  inSets[0] = inSets[1] = 0;
  const visited = new Uint8Array(n), needs = new Uint32Array(2);
  const work = [0];
  visited[0] = 1;
  while (work.length) {
    const i = work.pop()!;
    let o0 = inSets[2 * i], o1 = inSets[2 * i + 1];
    needs[0] |= reads[2 * i] & ~o0, needs[1] |= reads[2 * i + 1] & ~o1;
    const w = writes[i];
    if (w >= 0) { if (w < 32) o0 |= 1 << w; else o1 |= 1 << (w - 32); }
    for (const m of successors(list, i)) {
      if (m >= n) continue;
      const v0 = inSets[2 * m] & o0, v1 = inSets[2 * m + 1] & o1;
      if (!visited[m] || v0 !== inSets[2 * m] || v1 !== inSets[2 * m + 1]) {
        inSets[2 * m] = v0, inSets[2 * m + 1] = v1, visited[m] = 1;
        work.push(m);
      }
    }
  }
  // Slots read before a sure write keep their zeroing (so do all, if a read was missed above).
  return zeroing.filter((i) => {
    const ins = list[i];
    if (ins.dst !== FP || ins.off % 8 !== 0) return false;
    const s = slotOf(ins.off);
    return s < 64 && !((needs[s >> 5] >>> (s & 31)) & 1);
  });
}

/** A 64-bit constant that fits in 32 signed bits loads with one "rX = imm" instead of two slots. */
function shortConstants(a: BpfAsm): void {
  const list = a.list, drop: number[] = [];
  for (const i of starts(list)) {
    const ins = list[i];
    if (!isLd64(ins) || ins.src !== 0) continue;
    const hi = list[i + 1].imm | 0, lo = ins.imm | 0;
    if ((hi === 0 && lo >= 0) || (hi === -1 && lo < 0)) {
      a.replace(i, BPF_ALU64 | ALU.MOV, ins.dst, 0, 0, lo);
      drop.push(i + 1);
    }
  }
  if (drop.length) a.remove(drop);
}

/**
 * "rA = <value>; rB = rA" with rA dead afterwards becomes "rB = <value>", for values that do not
 * read rA's old contents (constants, loads, copies). Adds the moves to delete to `out`.
 */
function coalesceMoves(a: BpfAsm, out: Set<number>): void {
  const list = a.list, targets = jumpTargets(list), live = liveness(list);
  for (const i of starts(list)) {
    const ins = list[i], c = cls(ins);
    const j = isLd64(ins) ? i + 2 : i + 1, mv = list[j];
    if (!mv || mv.code !== (BPF_ALU64 | ALU.MOV | BPF_X) || mv.off !== 0 || mv.src !== ins.dst || mv.dst === ins.dst || targets.has(j)) continue;
    const defines = isLd64(ins) || (c === BPF_ALU64 && (ins.code & 0xf0) === ALU.MOV) ||
      (c === BPF_LDX && (ins.code & 0xe0) === BPF_MEM);
    if (!defines || ins.dst === FP || mv.dst === FP || (live.out(j) & bit(ins.dst))) continue;
    if (out.has(i) || out.has(j)) continue;
    a.replace(i, ins.code, mv.dst, ins.src, ins.off, ins.imm);
    out.add(j);
  }
}

/** Indexes that some jump lands on. */
function jumpTargets(list: readonly Readonly<Insn>[]): Set<number> {
  const out = new Set<number>();
  for (const ins of list) if (ins.label) out.add(ins.label.at);
  return out;
}

/** No-ops: "goto next" (a jump to the instruction right after it) and "rX = rX" (64-bit). */
function jumpsToNext(a: BpfAsm): number[] {
  const list = a.list, out: number[] = [];
  for (let i = 0; i < list.length; i++) {
    const ins = list[i];
    if ((ins.code === (BPF_JMP | JMP.JA) && ins.label?.at === i + 1) ||
      (ins.code === (BPF_ALU64 | ALU.MOV | BPF_X) && ins.dst === ins.src && ins.off === 0)) out.push(i);
  }
  return out;
}

/**
 * "[fp+K] = rX; rY = [fp+K]" (8 bytes, nothing jumping between them): the load becomes
 * "rY = rX", and unreadStackStores may then drop the store.
 */
function forwardStackLoads(a: BpfAsm): void {
  const list = a.list, targets = jumpTargets(list);
  for (let i = 0; i + 1 < list.length; i++) {
    const st = list[i], ld = list[i + 1];
    if (st.code !== (BPF_STX | BPF_MEM | BPF_DW) || st.dst !== FP || targets.has(i + 1)) continue;
    if (ld.code !== (BPF_LDX | BPF_MEM | BPF_DW) || ld.src !== FP || ld.off !== st.off) continue;
    a.replace(i + 1, BPF_ALU64 | ALU.MOV | BPF_X, ld.dst, st.src, 0, 0);
  }
}

/** Stores to stack slots that nothing reads: no load from them, no pointer to them. */
function unreadStackStores(a: BpfAsm): number[] {
  const list = a.list;
  const ptrs = pointersFrom(list, FP);
  if (!ptrs) return [];
  const STACK = 512;
  const read = new Uint8Array(STACK); // byte fp-STACK+k was read
  const mark = (off: number, n: number) => { for (let b = off; b < off + n; b++) if (b >= -STACK && b < 0) read[b + STACK] = 1; };
  for (const k of ptrs) mark(k, 8);
  for (const ins of list) {
    const c = cls(ins);
    if ((c === BPF_LDX && ins.src === FP) || (c === BPF_STX && (ins.code & 0xe0) !== BPF_MEM && ins.dst === FP)) mark(ins.off, bytes(ins));
  }
  const unread = (off: number, n: number) => {
    for (let b = off; b < off + n; b++) if (b < -STACK || b >= 0 || read[b + STACK]) return false;
    return true;
  };
  const out: number[] = [];
  for (let i = 0; i < list.length; i++) {
    const ins = list[i], c = cls(ins);
    const store = (c === BPF_ST || (c === BPF_STX && (ins.code & 0xe0) === BPF_MEM)) && ins.dst === FP;
    if (store && unread(ins.off, bytes(ins))) out.push(i);
  }
  return out;
}

/**
 * Helpers without side effects, and the argument registers each reads: a call whose r0 nobody
 * reads can go (the current task, its entry registers: argument loads no clause uses).
 */
const PURE_HELPERS = new Map<number, number>([
  [HELPER.get_current_task, 0],
  [HELPER.get_current_task_btf, 0],
  [HELPER.task_pt_regs, bit(1)],
]);

/** Registers read and written by one instruction; `pure` when dropping it changes nothing else. */
function regEffects(ins: Readonly<Insn>): { use: number; def: number; pure: boolean } {
  const c = cls(ins), op = ins.code & 0xf0, x = (ins.code & BPF_X) !== 0;
  if (isLd64(ins)) return { use: 0, def: bit(ins.dst), pure: true };
  switch (c) {
    case BPF_ALU:
    case BPF_ALU64:
      if (op === ALU.MOV) return { use: x ? bit(ins.src) : 0, def: bit(ins.dst), pure: true };
      if (op === ALU.NEG || op === 0xd0 /* END */) return { use: bit(ins.dst), def: bit(ins.dst), pure: true };
      if (op > ALU.ARSH) break;
      return { use: bit(ins.dst) | (x ? bit(ins.src) : 0), def: bit(ins.dst), pure: true };
    case BPF_LDX:
      if ((ins.code & 0xe0) !== BPF_MEM) break;
      return { use: bit(ins.src), def: bit(ins.dst), pure: true };
    case BPF_ST:
      return { use: bit(ins.dst), def: 0, pure: false };
    case BPF_STX:
      if ((ins.code & 0xe0) !== BPF_MEM) break;
      return { use: bit(ins.dst) | bit(ins.src), def: 0, pure: false };
    case BPF_JMP:
    case BPF_JMP32:
      if (op === JMP.CALL) {
        const reads = ins.src === 0 ? PURE_HELPERS.get(ins.imm) : undefined;
        return reads === undefined ? { use: 0x3e, def: 0x3f, pure: false } : { use: reads, def: 0x3f, pure: true };
      }
      if (op === JMP.EXIT) return { use: 1, def: 0, pure: false };
      if (op === JMP.JA) return { use: 0, def: 0, pure: false };
      return { use: bit(ins.dst) | (x ? bit(ins.src) : 0), def: 0, pure: false };
  }
  return { use: ALL_REGS, def: 0, pure: false };
}

/**
 * Registers live after each instruction (a bit per register), by backward dataflow over typed
 * arrays (a program may have tens of thousands of instructions and this runs every round).
 * `faint`: a pure instruction whose result is dead reads nothing either, so a chain of dead
 * computations is found dead in one solution instead of one link per round.
 */
function liveness(list: readonly Readonly<Insn>[], faint = false, gone: readonly number[] = []): { out: (i: number) => number; def: Int32Array; pure: Uint8Array; idx: number[] } {
  const n = list.length, idx = starts(list);
  const use = new Int32Array(n), def = new Int32Array(n), pure = new Uint8Array(n);
  const s0 = new Int32Array(n).fill(n), s1 = new Int32Array(n).fill(n); // n: past the end, nothing live
  for (const i of idx) {
    const e = regEffects(list[i]), s = successors(list, i);
    use[i] = e.use, def[i] = e.def, pure[i] = e.pure && list[i].dst !== FP ? 1 : 0;
    if (s.length > 0) s0[i] = Math.min(s[0], n);
    if (s.length > 1) s1[i] = Math.min(s[1], n);
  }
  for (const i of gone) use[i] = 0, def[i] = 0, pure[i] = 0; // being removed: reads nothing
  const liveIn = new Int32Array(n + 1);
  const out = (i: number) => liveIn[s0[i]] | liveIn[s1[i]];
  for (let changed = true; changed;) {
    changed = false;
    for (let k = idx.length - 1; k >= 0; k--) {
      const i = idx[k], o = liveIn[s0[i]] | liveIn[s1[i]];
      const v = faint && pure[i] && !(o & def[i]) ? o : use[i] | (o & ~def[i]);
      if (v !== liveIn[i]) (liveIn[i] = v), (changed = true);
    }
  }
  return { out, def, pure, idx };
}

/**
 * Pure instructions whose destination register is dead afterwards, or read only by such or by
 * the instructions `gone` (being removed) (never r10).
 */
function deadCode(a: BpfAsm, gone: readonly number[]): Set<number> {
  const list = a.list;
  const { out: liveOut, def, pure, idx } = liveness(list, true, gone);
  const out = new Set<number>();
  for (const i of idx) {
    if (!pure[i] || (liveOut(i) & def[i])) continue;
    out.add(i);
    if (isLd64(list[i])) out.add(i + 1);
  }
  return out;
}
