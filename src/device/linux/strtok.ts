// strtok(str, delims), with DTrace's semantics (dtrace_dif_subr): a NULL str goes on from where
// the previous call on this CPU stopped; leading delimiters are skipped; no token left is NULL
// (and forgets the position); otherwise the token is copied into the clause's scratch memory and
// the position moves to the delimiter (or NUL) that ended it. The position is a per-CPU u64 in
// mem (MemLayout.strtok), an address in the caller's string as in DTrace.

import * as D from '../../dif/constants.js';
import { ALU, HELPER, INVERSE, JMP, type JmpOp, type Label, R0, R1, R2, R3, R4, R6, R7, R8 } from './bpf-asm.js';

import type { ProbeTranslator } from './translate.js';

export function emitStrtok(t: ProbeTranslator, rd: number, pc: number, next: Label): void {
  const a = t.a, mem = t.env.mem, n = t.env.strsize;
  const saved = mem.strtok;
  if (saved === undefined) throw new Error('strtok: no per-CPU position slot in mem');
  const src = mem.cmpA, delims = mem.cmpB;
  const out = t.stringSlot(n);
  const map = delimiterMap(t); // one flag byte per character: is it a delimiter?
  const none = a.label('strtok.none'), done = a.label('strtok.done');

  // R6 = where to start: the string, or the saved position for a NULL string.
  a.ldx(8, R6, R8, mem.tuple);
  const given = a.label('strtok.given');
  a.jmpImm(JMP.JNE, R6, 0, given);
  a.ldx(8, R6, R8, saved);
  a.place(given);
  a.jmpImm(JMP.JEQ, R6, 0, none);
  a.mov(R1, R8), a.aluImm(ALU.ADD, R1, src), a.movImm(R2, n), a.mov(R3, R6);
  a.call(HELPER.probe_read_kernel_str);
  const read = a.label('strtok.read');
  a.jmpImm(JMP.JSGT, R0, 0, read);
  t.fault(D.DTRACEFLT_BADADDR, pc, R6, next);
  a.place(read);
  a.mov(R1, R8), a.aluImm(ALU.ADD, R1, delims), a.movImm(R2, n);
  a.ldx(8, R3, R8, mem.tuple + 8);
  a.call(HELPER.probe_read_kernel_str);
  const read2 = a.label('strtok.read2');
  a.jmpImm(JMP.JSGT, R0, 0, read2);
  a.ldx(8, R1, R8, mem.tuple + 8);
  t.fault(D.DTRACEFLT_BADADDR, pc, R1, next);
  a.place(read2);

  // The delimiter map. The loops keep their counters (and the copy its output index) in mem,
  // which the verifier does not track, and are bounded by may_goto too: it checks each body
  // once or twice instead of once per byte of strsize.
  const ctr = map + 256, outIdx = map + 264;
  a.zero(R8, map, 256);
  counted(t, R7, n, ctr, (brk) => {
    byteAt(t, R1, delims, R7);
    leave(t, JMP.JEQ, R1, 0, brk);
    a.mov(R2, R8), a.alu(ALU.ADD, R2, R1), a.st(1, R2, map, 1);
  });
  // Skip leading delimiters: R7 = index of the token's first character.
  const start = a.label('strtok.start');
  counted(t, R7, n, ctr, (brk) => {
    byteAt(t, R1, src, R7);
    leave(t, JMP.JEQ, R1, 0, none);
    a.mov(R2, R8), a.alu(ALU.ADD, R2, R1), a.ldx(1, R2, R2, map);
    leave(t, JMP.JEQ, R2, 0, start);
    void brk;
  });
  a.ja(none); // strsize characters of delimiters
  a.place(start);
  // Copy the token: [ctr] walks the source from R7 on, [outIdx] the result.
  a.stx(8, R8, ctr, R7);
  a.st(8, R8, outIdx, 0);
  const copy = a.label('strtok.copy'), end = a.label('strtok.end');
  a.place(copy);
  a.mayGoto(end);
  a.ldx(8, R7, R8, ctr);
  a.ldx(8, R4, R8, outIdx);
  leave(t, JMP.JGE, R7, n, end);
  leave(t, JMP.JGE, R4, n - 1, end);
  byteAt(t, R1, src, R7);
  leave(t, JMP.JEQ, R1, 0, end);
  a.mov(R2, R8), a.alu(ALU.ADD, R2, R1), a.ldx(1, R2, R2, map);
  leave(t, JMP.JNE, R2, 0, end);
  a.mov(R3, R8), a.alu(ALU.ADD, R3, R4), a.stx(1, R3, out, R1);
  a.aluImm(ALU.ADD, R7, 1), a.aluImm(ALU.ADD, R4, 1);
  a.stx(8, R8, ctr, R7);
  a.stx(8, R8, outIdx, R4);
  a.ja(copy);
  a.place(end);
  a.ldx(8, R7, R8, ctr);
  a.ldx(8, R4, R8, outIdx);
  const inside = a.label('strtok.inside');
  a.jmpImm(JMP.JLT, R4, n, inside); // always (the copy stops at n - 1); shown to the verifier
  a.movImm(R4, n - 1);
  a.place(inside);
  a.mov(R3, R8), a.alu(ALU.ADD, R3, R4), a.st(1, R3, out, 0);
  a.alu(ALU.ADD, R6, R7);
  a.stx(8, R8, saved, R6);
  a.ldx(8, R0, R8, mem.self), a.aluImm(ALU.ADD, R0, out);
  t.putReg(R0, rd);
  a.ja(done);

  a.place(none);
  a.st(8, R8, saved, 0);
  a.movImm(R0, 0);
  t.putReg(R0, rd);
  a.place(done);
}

/** The clause's delimiter map (and two u64 after it): one per ECB, shared by its strtok calls. */
const maps = new WeakMap<ProbeTranslator, { ecb: number; off: number }>();
function delimiterMap(t: ProbeTranslator): number {
  let m = maps.get(t);
  if (!m || m.ecb !== t.ecbIndex) maps.set(t, (m = { ecb: t.ecbIndex, off: t.scratch(256 + 16) }));
  return m.off;
}

/**
 * A loop with counter `reg` from 0 while < limit, kept at mem offset `ctr` and loaded into reg at
 * the top of each iteration; body may jump to brk to leave, and carries nothing else in registers.
 */
function counted(t: ProbeTranslator, reg: number, limit: number, ctr: number, body: (brk: Label) => void): void {
  const a = t.a;
  const head = a.label('strtok.loop'), brk = a.label('strtok.brk');
  a.st(8, R8, ctr, 0);
  a.place(head);
  a.mayGoto(brk);
  a.ldx(8, reg, R8, ctr);
  leave(t, JMP.JGE, reg, limit, brk);
  body(brk);
  a.ldx(8, reg, R8, ctr);
  a.aluImm(ALU.ADD, reg, 1);
  a.stx(8, R8, ctr, reg);
  a.ja(head);
  a.place(brk);
}

/**
 * Leave a loop when `reg op imm`, the exit as the fall-through: the verifier explores it first
 * instead of queueing one pending state per iteration (its jump-sequence limit).
 */
function leave(t: ProbeTranslator, op: JmpOp, reg: number, imm: number, target: Label): void {
  const a = t.a, stay = a.label('strtok.stay');
  a.jmpImm(INVERSE.get(op)!, reg, imm, stay);
  a.ja(target);
  a.place(stay);
}

/** dst = mem byte at base + idx (idx already below its bound). */
function byteAt(t: ProbeTranslator, dst: number, base: number, idx: number): void {
  const a = t.a;
  a.mov(R3, R8), a.alu(ALU.ADD, R3, idx), a.ldx(1, dst, R3, base);
}
