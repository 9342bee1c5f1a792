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
  type BpfAsm, FP, type Insn, JMP, R8,
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
    const dead = new Set([...deadCode(a), ...unreadStackStores(a), ...jumpsToNext(a)]);
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
  const list = a.list;
  if (zeroing.length === 0) return [];
  const ptrs = pointersFrom(list, FP);
  if (!ptrs) return [];
  const slotOf = (off: number) => Math.floor((-off - 1) / 8); // bytes fp-8..fp-1 -> 0, fp-16..fp-9 -> 1
  const nslots = 64; // 512 bytes of stack
  const isZeroing = new Set(zeroing);
  const ptrAt = new Map<number, number>();
  for (const i of starts(list)) {
    const ins = list[i];
    if (ins.code === (BPF_ALU64 | ALU.MOV | BPF_X) && ins.src === FP) ptrAt.set(i + 1, list[i + 1].imm);
  }
  // Forward "surely written" sets of slots (bit s), meeting by intersection.
  const words = Math.ceil(nslots / 32);
  const full = () => new Uint32Array(words).fill(0xffffffff);
  const inSets = list.map(() => full());
  const entry = new Uint32Array(words);
  inSets[0] = entry;
  const visited = new Uint8Array(list.length);
  const needs = new Set<number>();
  const has = (set: Uint32Array, s: number) => s >= 0 && s < nslots && (set[s >> 5] >>> (s & 31)) & 1;
  const add = (set: Uint32Array, s: number) => { if (s >= 0 && s < nslots) set[s >> 5] |= 1 << (s & 31); };
  const slotsRead = (i: number): number[] => {
    const ins = list[i], c = cls(ins);
    const span = (off: number, n: number) => {
      const out: number[] = [];
      for (let b = off; b < off + n; b += 1) if (b < 0) out.push(slotOf(b));
      return [...new Set(out)];
    };
    if (c === BPF_LDX && ins.src === FP) return span(ins.off, bytes(ins));
    if (c === BPF_STX && (ins.code & 0xe0) !== BPF_MEM && ins.dst === FP) return span(ins.off, bytes(ins));
    const k = ptrAt.get(i);
    if (k !== undefined) return span(k, 8);
    return [];
  };
  const work = [0];
  visited[0] = 1;
  while (work.length) {
    const i = work.pop()!;
    if (i >= list.length) continue;
    const ins = list[i], c = cls(ins);
    const out = Uint32Array.from(inSets[i]);
    for (const s of slotsRead(i)) if (!has(out, s)) needs.add(s);
    if (!isZeroing.has(i) && (c === BPF_ST || (c === BPF_STX && (ins.code & 0xe0) === BPF_MEM)) && ins.dst === FP &&
        bytes(ins) === 8 && ins.off % 8 === 0) add(out, slotOf(ins.off));
    for (const n of successors(list, i)) {
      if (n >= list.length) continue;
      const into = inSets[n];
      let changed = !visited[n];
      for (let w = 0; w < words; w++) {
        const v = into[w] & out[w];
        if (v !== into[w]) (into[w] = v), (changed = true);
      }
      visited[n] = 1;
      if (changed) work.push(n);
    }
  }
  // Slots read before a sure write keep their zeroing (so do all, if a read was missed above).
  return zeroing.filter((i) => {
    const ins = list[i];
    return ins.dst === FP && ins.off % 8 === 0 && !needs.has(slotOf(ins.off));
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
  return a.list.flatMap((ins, i) =>
    (ins.code === (BPF_JMP | JMP.JA) && ins.label?.at === i + 1) ||
    (ins.code === (BPF_ALU64 | ALU.MOV | BPF_X) && ins.dst === ins.src && ins.off === 0) ? [i] : []);
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
  return list.flatMap((ins, i) => {
    const c = cls(ins);
    const store = (c === BPF_ST || (c === BPF_STX && (ins.code & 0xe0) === BPF_MEM)) && ins.dst === FP;
    return store && unread(ins.off, bytes(ins)) ? [i] : [];
  });
}

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
      if (op === JMP.CALL) return { use: 0x3e, def: 0x3f, pure: false };
      if (op === JMP.EXIT) return { use: 1, def: 0, pure: false };
      if (op === JMP.JA) return { use: 0, def: 0, pure: false };
      return { use: bit(ins.dst) | (x ? bit(ins.src) : 0), def: 0, pure: false };
  }
  return { use: ALL_REGS, def: 0, pure: false };
}

/** Registers live after each instruction (a bit per register), by backward dataflow. */
function liveness(list: readonly Readonly<Insn>[]): { out: (i: number) => number; effects: Map<number, ReturnType<typeof regEffects>> } {
  const idx = starts(list);
  const effects = new Map(idx.map((i) => [i, regEffects(list[i])]));
  const use = new Int32Array(list.length + 1), def = new Int32Array(list.length + 1);
  const succ = new Array<number[]>(list.length);
  for (const i of idx) {
    const e = effects.get(i)!;
    use[i] = e.use, def[i] = e.def, succ[i] = successors(list, i);
  }
  const liveIn = new Int32Array(list.length + 1); // index list.length: past the end, nothing live
  const liveOut = (i: number) => {
    let m = 0;
    for (const n of succ[i]) m |= liveIn[n] ?? 0;
    return m;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (let k = idx.length - 1; k >= 0; k--) {
      const i = idx[k];
      const v = use[i] | (liveOut(i) & ~def[i]);
      if (v !== liveIn[i]) (liveIn[i] = v), (changed = true);
    }
  }
  return { out: liveOut, effects };
}

/** Pure instructions whose destination register is dead afterwards (never r10). */
function deadCode(a: BpfAsm): Set<number> {
  const list = a.list;
  const { out: liveOut, effects } = liveness(list);
  const out = new Set<number>();
  for (const i of starts(list)) {
    const e = effects.get(i)!, ins = list[i];
    if (!e.pure || ins.dst === FP || (liveOut(i) & e.def)) continue;
    out.add(i);
    if (isLd64(ins)) out.add(i + 1);
  }
  return out;
}
