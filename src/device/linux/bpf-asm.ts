// eBPF instruction encoding and a small assembler with labels.
//
// Numbers are the kernel's (include/uapi/linux/bpf.h, bpf_common.h). Each instruction is 8 bytes:
// opcode, dst:4|src:4, signed 16-bit offset, signed 32-bit immediate; a 64-bit immediate load takes
// two slots.

export const BPF_LD = 0x00, BPF_LDX = 0x01, BPF_ST = 0x02, BPF_STX = 0x03;
export const BPF_ALU = 0x04, BPF_JMP = 0x05, BPF_JMP32 = 0x06, BPF_ALU64 = 0x07;
export const BPF_W = 0x00, BPF_H = 0x08, BPF_B = 0x10, BPF_DW = 0x18;
export const BPF_IMM = 0x00, BPF_MEM = 0x60, BPF_MEMSX = 0x80, BPF_ATOMIC = 0xc0;
export const BPF_K = 0x00, BPF_X = 0x08;

export const ALU = {
  ADD: 0x00, SUB: 0x10, MUL: 0x20, DIV: 0x30, OR: 0x40, AND: 0x50, LSH: 0x60, RSH: 0x70,
  NEG: 0x80, MOD: 0x90, XOR: 0xa0, MOV: 0xb0, ARSH: 0xc0,
} as const;

export const JMP = {
  JA: 0x00, JEQ: 0x10, JGT: 0x20, JGE: 0x30, JSET: 0x40, JNE: 0x50, JSGT: 0x60, JSGE: 0x70,
  CALL: 0x80, EXIT: 0x90, JLT: 0xa0, JLE: 0xb0, JSLT: 0xc0, JSLE: 0xd0,
  /** BPF_JCOND: may_goto. */
  JCOND: 0xe0,
} as const;
export type JmpOp = (typeof JMP)[keyof typeof JMP];

export const BPF_PSEUDO_MAP_FD = 1;
export const BPF_PSEUDO_MAP_VALUE = 2;

/** Helper function ids (enum bpf_func_id). */
export const HELPER = {
  map_lookup_elem: 1,
  map_update_elem: 2,
  map_delete_elem: 3,
  ktime_get_ns: 5,
  get_prandom_u32: 7,
  get_smp_processor_id: 8,
  tail_call: 12,
  get_current_pid_tgid: 14,
  get_current_uid_gid: 15,
  get_current_comm: 16,
  perf_event_output: 25,
  get_current_task: 35,
  send_signal: 109,
  probe_read_user: 112,
  probe_read_kernel: 113,
  probe_read_user_str: 114,
  probe_read_kernel_str: 115,
  send_signal_thread: 117,
  get_attach_cookie: 174,
  get_current_task_btf: 158,
  task_pt_regs: 175,
} as const;

export const BPF_PROG_TYPE = { KPROBE: 2, TRACEPOINT: 5, PERF_EVENT: 7, RAW_TRACEPOINT: 17 } as const;
export const BPF_MAP_TYPE = {
  HASH: 1, ARRAY: 2, PROG_ARRAY: 3, PERF_EVENT_ARRAY: 4, PERCPU_HASH: 5, PERCPU_ARRAY: 6, LRU_HASH: 9, ARRAY_OF_MAPS: 12,
} as const;
export const BPF_F_CURRENT_CPU = 0xffffffff;
export const BPF_NOEXIST = 1;
export const BPF_F_RDONLY_PROG = 1 << 7;

export const R0 = 0, R1 = 1, R2 = 2, R3 = 3, R4 = 4, R5 = 5, R6 = 6, R7 = 7, R8 = 8, R9 = 9, FP = 10;

export type Size = 1 | 2 | 4 | 8;
export function sizeCode(size: Size): number {
  return size === 1 ? BPF_B : size === 2 ? BPF_H : size === 4 ? BPF_W : BPF_DW;
}

export interface Insn {
  code: number;
  dst: number;
  src: number;
  off: number;
  imm: number;
  /** Jump whose offset is resolved from a label when the program is finished. */
  label?: Label;
}

export class Label {
  at = -1;
  constructor(readonly name: string) {}
}

/** Builds an eBPF program; jumps refer to labels resolved by finish(). */
export class BpfAsm {
  private insns: Insn[] = [];

  get length(): number {
    return this.insns.length;
  }

  label(name = ''): Label {
    return new Label(name);
  }

  /** Labels placed so far (remove() moves them). */
  private placed: Label[] = [];

  place(l: Label): void {
    if (l.at >= 0) throw new Error(`BPF label ${l.name} placed twice`);
    l.at = this.insns.length;
    this.placed.push(l);
  }

  raw(code: number, dst: number, src: number, off: number, imm: number): void {
    this.insns.push({ code, dst, src, off, imm });
  }

  /** The instructions emitted so far, for analysis passes (peephole.ts); do not modify. */
  get list(): readonly Readonly<Insn>[] {
    return this.insns;
  }

  /** Replace instruction i by a plain (label-free) one. */
  replace(i: number, code: number, dst: number, src: number, off: number, imm: number): void {
    this.insns[i] = { code, dst, src, off, imm };
  }

  /**
   * Delete the instructions at these indexes (both slots of a 64-bit load). A label moves to the
   * first instruction kept at or after it; nothing may jump into a deleted instruction.
   */
  remove(indexes: Iterable<number>): void {
    const gone = new Uint8Array(this.insns.length + 1);
    for (const i of indexes) gone[i] = 1;
    const before = new Int32Array(this.insns.length + 1); // deleted instructions before index i
    for (let i = 0; i < this.insns.length; i++) before[i + 1] = before[i] + gone[i];
    const labels = new Set<Label>(this.placed);
    for (const ins of this.insns) if (ins.label) labels.add(ins.label);
    for (const l of labels) if (l.at >= 0) l.at -= before[l.at];
    this.insns = this.insns.filter((_, i) => !gone[i]);
  }

  // --- ALU (64-bit unless stated)
  movImm(dst: number, imm: number): void { this.raw(BPF_ALU64 | ALU.MOV | BPF_K, dst, 0, 0, imm); }
  mov(dst: number, src: number): void { this.raw(BPF_ALU64 | ALU.MOV | BPF_X, dst, src, 0, 0); }
  mov32(dst: number, src: number): void { this.raw(BPF_ALU | ALU.MOV | BPF_X, dst, src, 0, 0); }
  alu(op: number, dst: number, src: number, off = 0): void { this.raw(BPF_ALU64 | op | BPF_X, dst, src, off, 0); }
  aluImm(op: number, dst: number, imm: number, off = 0): void { this.raw(BPF_ALU64 | op | BPF_K, dst, 0, off, imm); }
  /** Sign-extend the low `bits` of src into dst (cpu v4 MOVSX). */
  movsx(dst: number, src: number, bits: 8 | 16 | 32): void { this.raw(BPF_ALU64 | ALU.MOV | BPF_X, dst, src, bits, 0); }

  /** dst = 64-bit constant. */
  ld64(dst: number, value: bigint): void {
    const v = BigInt.asUintN(64, value);
    const lo = Number(v & 0xffffffffn) | 0;
    const hi = Number(v >> 32n) | 0;
    this.raw(BPF_LD | BPF_DW | BPF_IMM, dst, 0, 0, lo);
    this.raw(0, 0, 0, 0, hi);
  }
  /** dst = pointer to the map with this fd. */
  ldMap(dst: number, fd: number): void {
    this.raw(BPF_LD | BPF_DW | BPF_IMM, dst, BPF_PSEUDO_MAP_FD, 0, fd);
    this.raw(0, 0, 0, 0, 0);
  }
  /** dst = pointer to byte `off` of element 0 of an array map. */
  ldMapValue(dst: number, fd: number, off: number): void {
    this.raw(BPF_LD | BPF_DW | BPF_IMM, dst, BPF_PSEUDO_MAP_VALUE, 0, fd);
    this.raw(0, 0, 0, 0, off);
  }

  // --- memory
  ldx(size: Size, dst: number, src: number, off: number): void {
    this.raw(BPF_LDX | BPF_MEM | sizeCode(size), dst, src, off, 0);
  }
  stx(size: Size, dst: number, off: number, src: number): void {
    this.raw(BPF_STX | BPF_MEM | sizeCode(size), dst, src, off, 0);
  }
  st(size: Size, dst: number, off: number, imm: number): void {
    this.raw(BPF_ST | BPF_MEM | sizeCode(size), dst, 0, off, imm);
  }
  /** *(u64 *)(dst + off) += src, atomically (BPF_ATOMIC's BPF_ADD). */
  atomicAdd(dst: number, off: number, src: number): void {
    this.raw(BPF_STX | BPF_ATOMIC | BPF_DW, dst, src, off, ALU.ADD);
  }

  // --- control
  jmp(op: JmpOp, dst: number, src: number, target: Label): void {
    this.insns.push({ code: BPF_JMP | op | BPF_X, dst, src, off: 0, imm: 0, label: target });
  }
  jmpImm(op: JmpOp, dst: number, imm: number, target: Label): void {
    this.insns.push({ code: BPF_JMP | op | BPF_K, dst, src: 0, off: 0, imm, label: target });
  }
  /**
   * may_goto (BPF_JCOND): fall through while the kernel's loop budget lasts, jump to `target` when
   * it is spent -- how every bounded loop here gets past the verifier once, not per iteration.
   */
  mayGoto(target: Label): void {
    this.jmpImm(JMP.JCOND, 0, 0, target);
  }

  ja(target: Label): void {
    this.insns.push({ code: BPF_JMP | JMP.JA, dst: 0, src: 0, off: 0, imm: 0, label: target });
  }
  call(helper: number): void { this.raw(BPF_JMP | JMP.CALL, 0, 0, 0, helper); }
  exit(): void { this.raw(BPF_JMP | JMP.EXIT, 0, 0, 0, 0); }

  /** Zero `len` bytes (a multiple of 8) at dst+off with 8-byte stores. */
  zero(dst: number, off: number, len: number): void {
    for (let i = 0; i < len; i += 8) this.st(8, dst, off + i, 0);
  }

  /**
   * The program's bytes, every label resolved. A jump's offset is 16 bits, so a clause of more
   * than 32767 instructions may hold jumps that reach past it: an unconditional one becomes a
   * `gotol` (BPF_JMP32 | BPF_JA, a 32-bit offset in imm; Linux 6.4), and a conditional one becomes
   * its inverted condition over a `gotol` (`if !cond goto +1; gotol target`), or, for the two
   * that have no inverse (jset, may_goto), jumps over a `goto` to one (`if cond goto +1;
   * goto +1; gotol target`). A jump's reach is measured as the verifier will have made the
   * program, after it has rewritten some instructions into several (`verifierGrowth`): a 16-bit
   * jump over them it cannot patch ("cannot be patched due to 16-bit range"). Expanding one jump
   * may push others out of range, so the layout is recomputed until nothing more needs it.
   */
  finish(): Buffer {
    const n = this.insns.length;
    for (const ins of this.insns) if (ins.label && ins.label.at < 0) throw new Error(`BPF label ${ins.label.name} never placed`);
    const conditional = (ins: Insn) => (ins.code & 0xf0) !== JMP.JA;
    // The far form's length: 1 (gotol), 2 (inverted condition, gotol), 3 (condition, goto, gotol).
    const farLength = (ins: Insn) => !conditional(ins) ? 1 : INVERSE.has(ins.code & 0xf0) ? 2 : 3;
    const far = new Uint8Array(n);
    const pos = new Int32Array(n + 1); // the new index of each instruction (n: the end)
    const reach = new Int32Array(n + 1); // its index once the verifier has rewritten the program
    for (;;) {
      for (let i = 0, at = 0, grown = 0; i <= n; i++) {
        pos[i] = at;
        reach[i] = at + grown;
        if (i < n) {
          at += far[i] ? farLength(this.insns[i]) : 1;
          grown += verifierGrowth(this.insns[i]);
        }
      }
      let changed = false;
      this.insns.forEach((ins, i) => {
        if (!ins.label || far[i]) return;
        const off = reach[ins.label.at] - (reach[i] + 1);
        if (off < -32768 || off > 32767) {
          far[i] = 1;
          changed = true;
        }
      });
      if (!changed) break;
    }
    const buf = Buffer.alloc(pos[n] * 8);
    const put = (at: number, code: number, dst: number, src: number, off: number, imm: number) => {
      buf.writeUInt8(code, at * 8);
      buf.writeUInt8((dst & 0xf) | ((src & 0xf) << 4), at * 8 + 1);
      buf.writeInt16LE(off, at * 8 + 2);
      buf.writeInt32LE(imm | 0, at * 8 + 4);
    };
    this.insns.forEach((ins, i) => {
      const at = pos[i];
      if (!ins.label) return put(at, ins.code, ins.dst, ins.src, ins.off, ins.imm);
      const target = pos[ins.label.at];
      if (!far[i]) return put(at, ins.code, ins.dst, ins.src, target - (at + 1), ins.imm);
      if (!conditional(ins)) return put(at, BPF_JMP32 | JMP.JA, 0, 0, 0, target - (at + 1));
      const inverse = INVERSE.get(ins.code & 0xf0);
      if (inverse !== undefined) {
        put(at, (ins.code & ~0xf0) | inverse, ins.dst, ins.src, 1, ins.imm);
        return put(at + 1, BPF_JMP32 | JMP.JA, 0, 0, 0, target - (at + 2));
      }
      put(at, ins.code, ins.dst, ins.src, 1, ins.imm);
      put(at + 1, BPF_JMP | JMP.JA, 0, 0, 1, 0);
      put(at + 2, BPF_JMP32 | JMP.JA, 0, 0, 0, target - (at + 3));
    });
    return buf;
  }
}

/** Each conditional jump's opposite (jset and may_goto have none). */
export const INVERSE = new Map<number, JmpOp>([
  [JMP.JEQ, JMP.JNE], [JMP.JNE, JMP.JEQ], [JMP.JGT, JMP.JLE], [JMP.JLE, JMP.JGT], [JMP.JGE, JMP.JLT],
  [JMP.JLT, JMP.JGE], [JMP.JSGT, JMP.JSLE], [JMP.JSLE, JMP.JSGT], [JMP.JSGE, JMP.JSLT], [JMP.JSLT, JMP.JSGE],
]);

/**
 * At most how many instructions the verifier adds in place of this one when it rewrites the
 * program before JIT (do_misc_fixups): a helper call it inlines (array and per-CPU array map
 * lookups take about ten), a division or modulo by a register (its divide-by-zero and INT_MIN / -1
 * guards), may_goto (its counter on the stack). Generous, so that a jump is made far in time.
 */
export function verifierGrowth(ins: Insn): number {
  const cls = ins.code & 0x07;
  if (cls === BPF_JMP && (ins.code & 0xf0) === JMP.CALL) return 16;
  if (cls === BPF_JMP && (ins.code & 0xf0) === JMP.JCOND) return 8;
  if ((cls === BPF_ALU64 || cls === BPF_ALU) && (ins.code & BPF_X) !== 0) {
    const op = ins.code & 0xf0;
    if (op === ALU.DIV || op === ALU.MOD) return 8;
  }
  return 0;
}

/** A u32 map key or value (array indexes, map fds in a map of maps). */
export function u32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v >>> 0);
  return b;
}
