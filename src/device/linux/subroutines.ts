// DIF subroutines (the CALL instruction) as eBPF, with DTrace's semantics (dtrace_dif_subr).
//
// Arguments are on the DIF tuple stack (translator.tuple, values at mem.tuple + 8*i); the result
// goes to DIF register rd. Strings are kernel addresses: a string argument is first copied into
// mem.cmpA / mem.cmpB (strsize bytes each, free during a CALL) with bpf_probe_read_kernel_str,
// and a string result is built in a scratch slot of the clause and passed on by address.
//
// Keeping the verifier's work small: loops are bounded by strsize with a constant-bounded
// counter; values a loop produces go to the per-ECB temporaries in mem (the verifier does not
// track map memory, so paths that differ only there are pruned), and every variable index is
// compared with its bound right before the access.

import * as D from '../../dif/constants.js';
import { ALU, type BpfAsm, HELPER, INVERSE, JMP, type JmpOp, R0, R1, R2, R3, R4, R5, R6, R7, R8, type Label, type Size } from './bpf-asm.js';
import { type ProbeTranslator, TranslateError } from './translate.js';
import { emitSpeculationSubr } from './speculation.js';
import { emitCopyout } from './destructive.js';
import { emitStrtok } from './strtok.js';
import { emitJson } from './json.js';
import { emitInet6 } from './inet6.js';
import { emitTask } from './context-task.js';
import { subrName } from '../../dif/subroutines.js';

/** One CALL site. */
interface Call {
  t: ProbeTranslator;
  rd: number;
  pc: number;
  next: Label;
  nargs: number;
  n: number; // strsize
}

type Subroutine = (c: Call) => void;

const TEMPS = 6; // u64 temporaries per ECB

/**
 * Per-ECB work memory, shared by the calls of one clause (a call needs it only while it runs),
 * allocated on first use: the u64 temporaries, and a table of strsize u16 for the string search.
 */
type Area = 'temps' | 'table' | 'loops';
const areas = new WeakMap<ProbeTranslator, { ecb: number; off: Partial<Record<Area, number>> }>();

function area(t: ProbeTranslator, which: Area): number {
  let a = areas.get(t);
  if (!a || a.ecb !== t.ecbIndex) areas.set(t, (a = { ecb: t.ecbIndex, off: {} }));
  return (a.off[which] ??= t.scratch(which === 'temps' ? 8 * TEMPS : which === 'loops' ? 8 * LOOP_DEPTH : 2 * t.env.strsize));
}

const LOOP_DEPTH = 2; // nested loop() calls

/** Offset in mem of the counter of the loop() at nesting depth i. */
function loopCounter(t: ProbeTranslator, i: number): number {
  if (i >= LOOP_DEPTH) throw new TranslateError('loops nested too deep', t.ecbIndex, t.actionIndex);
  return area(t, 'loops') + 8 * i;
}

/** Offset in mem of temporary u64 number i of the current ECB. */
function temp(t: ProbeTranslator, i: number): number {
  return area(t, 'temps') + 8 * i;
}

/** reg = tuple argument i. */
function arg(c: Call, i: number, reg: number): void {
  const t = c.t;
  if (i >= t.tuple.length) throw new TranslateError(`subroutine argument #${i + 1} is missing`, t.ecbIndex, t.actionIndex);
  t.a.ldx(8, reg, R8, t.env.mem.tuple + 8 * i);
}

/** Fault unless the branch to `ok` is taken: emit `jump(ok)`, then the fault, then ok. */
function faultUnless(c: Call, jump: (ok: Label) => void, code: number, addrReg?: number): void {
  const ok = c.t.a.label('subr.ok');
  jump(ok);
  c.t.fault(code, c.pc, addrReg, c.next);
  c.t.a.place(ok);
}

/** Copy string argument i into mem at dst (strsize bytes); R0 = its length + 1. */
function readStr(c: Call, i: number, dst: number): void {
  const a = c.t.a;
  arg(c, i, R3);
  a.mov(R1, R8), a.aluImm(ALU.ADD, R1, dst), a.movImm(R2, c.n);
  a.call(HELPER.probe_read_kernel_str);
  const ok = a.label('str.ok');
  a.jmpImm(JMP.JSGT, R0, 0, ok);
  arg(c, i, R1);
  c.t.fault(D.DTRACEFLT_BADADDR, c.pc, R1, c.next);
  a.place(ok);
}

/** rd = the scalar address of mem offset `off` (plus reg, if given). */
function resultAddr(c: Call, off: number, plus?: number): void {
  const a = c.t.a;
  a.ldx(8, R0, R8, c.t.env.mem.self);
  a.aluImm(ALU.ADD, R0, off);
  if (plus !== undefined) a.alu(ALU.ADD, R0, plus);
  c.t.putReg(R0, c.rd);
}

/** rd = the u64 at mem offset `off`. */
function resultTemp(c: Call, off: number): void {
  c.t.a.ldx(8, R0, R8, off);
  c.t.putReg(R0, c.rd);
}

/** dst = byte of mem at `base + idx` (idx already checked against its bound). */
function loadByte(c: Call, dst: number, base: number, idx: number, scratchReg = R5): void {
  const a = c.t.a;
  a.mov(scratchReg, R8), a.alu(ALU.ADD, scratchReg, idx), a.ldx(1, dst, scratchReg, base);
}

function storeByte(c: Call, base: number, idx: number, src: number, scratchReg = R5): void {
  const a = c.t.a;
  a.mov(scratchReg, R8), a.alu(ALU.ADD, scratchReg, idx), a.stx(1, scratchReg, base, src);
}

/** BPF_JMP | BPF_JCOND: may_goto, taken once the program's loop budget is spent. */

/** How deep loop() calls are nested while they are emitted (each depth has its counter in mem). */
let loopDepth = 0;

/**
 * A counted loop: counter in `reg` from 0 while < limit (a constant); body(brk, cont).
 * The body may jump to brk to leave or to cont to go on with the next iteration.
 *
 * The counter lives in mem and is loaded into `reg` at the top of each iteration, and the loop is
 * bounded by may_goto as well: the verifier, which does not track map memory, then sees the same
 * state at the loop head after an iteration or two and stops there, so a loop over strsize bytes
 * costs about twice its body whatever strsize is (instead of once per iteration, which put
 * rindex() over strsize=4096 past the verifier's million instructions). The body must keep what
 * it carries from one iteration to the next in mem, not in registers. `counted` keeps the old
 * shape, a register counter the verifier follows step by step, for the short loops (64 steps)
 * whose bodies carry registers across iterations.
 */
function loop(c: Call, reg: number, limit: number, body: (brk: Label, cont: Label) => void, counted = false): void {
  const a = c.t.a;
  const head = a.label('loop'), cont = a.label('loop.next'), brk = a.label('loop.end');
  if (counted) {
    a.movImm(reg, 0);
    a.place(head);
    leaveImm(a, JMP.JGE, reg, limit, brk);
    body(brk, cont);
    a.place(cont);
    a.aluImm(ALU.ADD, reg, 1);
    a.ja(head);
    a.place(brk);
    return;
  }
  const ctr = loopCounter(c.t, loopDepth);
  loopDepth++;
  a.st(8, R8, ctr, 0);
  a.place(head);
  a.mayGoto(brk);
  a.ldx(8, reg, R8, ctr);
  leaveImm(a, JMP.JGE, reg, limit, brk);
  // Only the body nests loops; a TranslateError thrown in it must not leave the depth raised
  // for the next program this process translates (a library handle enables again).
  try { body(brk, cont); } finally { loopDepth--; }
  a.place(cont);
  a.ldx(8, reg, R8, ctr);
  a.aluImm(ALU.ADD, reg, 1);
  a.stx(8, R8, ctr, reg);
  a.ja(head);
  a.place(brk);
}

/**
 * Leave a loop when `dst op imm`. The exit is the fall-through and staying is the jump: the
 * verifier follows the fall-through first and queues the jump, so exits are explored (and later
 * ones pruned) as they come instead of piling up thousands of queued states.
 */
function leaveImm(a: BpfAsm, op: JmpOp, dst: number, imm: number, target: Label): void {
  const stay = a.label('stay');
  a.jmpImm(INVERSE.get(op)!, dst, imm, stay);
  a.ja(target);
  a.place(stay);
}

function leave(a: BpfAsm, op: JmpOp, dst: number, src: number, target: Label): void {
  const stay = a.label('stay');
  a.jmp(INVERSE.get(op)!, dst, src, stay);
  a.ja(target);
  a.place(stay);
}

/** Byte swap of the low `bits` of reg (BPF_END to big endian; zero-extends). */
function bswap(c: Call, reg: number, bits: 16 | 32 | 64): void {
  c.t.a.raw(0x04 | 0xd0 | 0x08, reg, 0, 0, bits);
}

/** When an optional base argument is present, fault with ILLOP unless 2 <= base <= 36; R7 = base. */
function baseArg(c: Call, i: number): void {
  const a = c.t.a;
  if (c.nargs <= i) {
    a.movImm(R7, 10);
    return;
  }
  arg(c, i, R7);
  const bad = a.label('base.bad'), ok = a.label('base.ok');
  a.jmpImm(JMP.JSLE, R7, 1, bad);
  a.jmpImm(JMP.JSLE, R7, 36, ok);
  a.place(bad);
  c.t.fault(D.DTRACEFLT_ILLOP, c.pc, undefined, c.next);
  a.place(ok);
}

// ---------------------------------------------------------------- string subroutines

/**
 * strlen(s): at most the strsize option's value, which is n - 1 here (a string slot holds that
 * many characters and the NUL), as DTrace for Linux counts.
 */
function strlen(c: Call): void {
  const { t, n } = c, a = t.a;
  arg(c, 0, R3);
  a.mov(R1, R8), a.aluImm(ALU.ADD, R1, t.env.mem.cmpA), a.movImm(R2, n);
  a.call(HELPER.probe_read_kernel_str);
  arg(c, 0, R1);
  faultUnless(c, (ok) => a.jmpImm(JMP.JSGT, R0, 0, ok), D.DTRACEFLT_BADADDR, R1);
  a.aluImm(ALU.SUB, R0, 1);
  t.putReg(R0, c.rd);
}

/**
 * strjoin(a, b): the joined string cut at strsize (strsize - 1 characters and the NUL, as every
 * string here), as DTrace for Linux cuts it, rather than an out-of-scratch fault.
 */
function strjoin(c: Call): void {
  const { t, n } = c, a = t.a, B = t.env.mem.cmpB;
  const out = t.stringSlot(n);
  readStr(c, 0, out);
  a.mov(R6, R0), a.aluImm(ALU.SUB, R6, 1);
  readStr(c, 1, B);
  a.st(1, R8, out + n - 1, 0);
  loop(c, R1, n, (brk) => {
    a.mov(R2, R6), a.alu(ALU.ADD, R2, R1);
    leaveImm(a, JMP.JGE, R2, n - 1, brk);
    loadByte(c, R3, B, R1);
    storeByte(c, out, R2, R3);
    leaveImm(a, JMP.JEQ, R3, 0, brk);
  });
  resultAddr(c, out);
}

/** substr(s, index, [length]) with DTrace's rules for negative positions and lengths. */
function substr(c: Call): void {
  const { t, n } = c, a = t.a, A = t.env.mem.cmpA;
  const out = t.stringSlot(n);
  readStr(c, 0, A);
  a.mov(R6, R0), a.aluImm(ALU.SUB, R6, 1); // len
  arg(c, 1, R7); // index
  if (c.nargs > 2) arg(c, 2, R5);
  else a.movImm(R5, n); // remaining
  const idxOk = a.label('substr.idx'), empty = a.label('substr.empty'), copy = a.label('substr.copy');
  const notNeg = a.label('substr.notneg');
  a.jmpImm(JMP.JSGE, R7, 0, idxOk);
  a.alu(ALU.ADD, R7, R6);
  a.jmpImm(JMP.JSGE, R7, 0, idxOk);
  a.mov(R1, R7), a.alu(ALU.ADD, R1, R5);
  a.jmpImm(JMP.JSLE, R1, 0, idxOk);
  a.alu(ALU.ADD, R5, R7), a.movImm(R7, 0);
  a.place(idxOk);
  a.jmp(JMP.JSGE, R7, R6, empty);
  a.jmpImm(JMP.JSLT, R7, 0, empty);
  a.jmpImm(JMP.JSGE, R5, 0, notNeg);
  a.alu(ALU.ADD, R5, R6), a.alu(ALU.SUB, R5, R7); // remaining += len - index
  a.ja(copy);
  a.place(notNeg);
  a.mov(R1, R7), a.alu(ALU.ADD, R1, R5);
  a.jmpImm(JMP.JSLE, R1, n, copy);
  a.movImm(R5, n), a.alu(ALU.SUB, R5, R7);
  a.ja(copy);
  a.place(empty);
  a.movImm(R5, 0);
  a.place(copy);
  a.st(1, R8, out, 0);
  loop(c, R1, n, (brk) => {
    leave(a, JMP.JSGE, R1, R5, brk);
    a.mov(R2, R7), a.alu(ALU.ADD, R2, R1);
    leaveImm(a, JMP.JGE, R2, n, brk);
    loadByte(c, R3, A, R2, R4);
    storeByte(c, out, R1, R3, R4);
    leaveImm(a, JMP.JEQ, R3, 0, brk);
    a.mov(R2, R1), a.aluImm(ALU.ADD, R2, 1);
    leaveImm(a, JMP.JGE, R2, n, brk);
    a.st(1, R4, out + 1, 0); // R4 is still mem + i
  });
  resultAddr(c, out);
}

/**
 * index(s, sub, [pos]), rindex(s, sub, [pos]) and strstr(s, sub), with DTrace's position rules.
 * The search is Knuth-Morris-Pratt, flattened into single loops of at most 2 * strsize steps
 * with the state in mem, so that the verifier's work grows linearly with strsize (a naive
 * search is a nested loop, quadratic for the verifier).
 */
function search(kind: 'index' | 'rindex' | 'strstr'): Subroutine {
  return (c) => {
    const { t, n } = c, a = t.a, mem = t.env.mem, A = mem.cmpA, B = mem.cmpB;
    const res = temp(t, 0), start = temp(t, 1), ti = temp(t, 2), tk = temp(t, 3), lenT = temp(t, 4), subT = temp(t, 5);
    const done = a.label('search.done');
    readStr(c, 0, A);
    a.mov(R6, R0), a.aluImm(ALU.SUB, R6, 1); // len
    readStr(c, 1, B);
    a.mov(R7, R0), a.aluImm(ALU.SUB, R7, 1); // sublen
    a.stx(8, R8, lenT, R6), a.stx(8, R8, subT, R7);
    a.st(8, R8, res, kind === 'strstr' ? 0 : -1);
    // Both empty: strstr gives the string, index and rindex give 0 whatever the position.
    const notBoth = a.label('search.notboth');
    a.jmpImm(JMP.JNE, R6, 0, notBoth);
    a.jmpImm(JMP.JNE, R7, 0, notBoth);
    if (kind === 'strstr') arg(c, 0, R1);
    else a.movImm(R1, 0);
    a.stx(8, R8, res, R1);
    a.ja(done);
    a.place(notBoth);
    if (kind === 'rindex') a.mov(R2, R6);
    else a.movImm(R2, 0);
    if (kind !== 'strstr' && c.nargs > 2) {
      arg(c, 2, R2);
      const ok = a.label('search.pos');
      const nonneg = a.label('search.nonneg');
      if (kind === 'rindex') {
        a.jmpImm(JMP.JSGE, R2, 0, nonneg);
        a.jmpImm(JMP.JNE, R7, 0, done);
        a.st(8, R8, res, 0);
        a.ja(done);
        a.place(nonneg);
        a.jmp(JMP.JSLE, R2, R6, ok);
        a.mov(R2, R6);
      } else {
        a.jmpImm(JMP.JSGE, R2, 0, nonneg);
        a.movImm(R2, 0);
        a.place(nonneg);
        a.jmp(JMP.JSLT, R2, R6, ok);
        a.jmpImm(JMP.JNE, R7, 0, done);
        a.stx(8, R8, res, R6);
        a.ja(done);
      }
      a.place(ok);
    }
    a.stx(8, R8, start, R2);
    // An empty substring is found where the search starts.
    const nonEmpty = a.label('search.nonempty');
    a.jmpImm(JMP.JNE, R7, 0, nonEmpty);
    if (kind === 'strstr') arg(c, 0, R2);
    a.stx(8, R8, res, R2);
    a.ja(done);
    a.place(nonEmpty);

    // The failure table: fail[i] = length of the longest proper border of sub[0..i].
    const w: Size = n <= 256 ? 1 : 2;
    const F = area(t, 'table');
    const failAt = (dst: number, idx: number) => { // dst = fail[idx], idx < n
      a.mov(R4, idx);
      if (w === 2) a.aluImm(ALU.LSH, R4, 1);
      a.alu(ALU.ADD, R4, R8), a.ldx(w, dst, R4, F);
    };
    const setFail = (idx: number, val: number) => {
      a.mov(R4, idx);
      if (w === 2) a.aluImm(ALU.LSH, R4, 1);
      a.alu(ALU.ADD, R4, R8), a.stx(w, R4, F, val);
    };
    a.st(w, R8, F, 0);
    a.st(8, R8, ti, 1), a.st(8, R8, tk, 0);
    loop(c, R1, 2 * n, (brk, cont) => {
      a.ldx(8, R2, R8, ti), a.ldx(8, R3, R8, tk), a.ldx(8, R4, R8, subT);
      leave(a, JMP.JGE, R2, R4, brk);
      leaveImm(a, JMP.JGE, R2, n, brk);
      leaveImm(a, JMP.JGE, R3, n, brk);
      loadByte(c, R5, B, R2, R4);
      loadByte(c, R0, B, R3, R4);
      const differ = a.label('kmp.differ'), zero = a.label('kmp.zero');
      a.jmp(JMP.JNE, R5, R0, differ);
      a.aluImm(ALU.ADD, R3, 1), setFail(R2, R3), a.stx(8, R8, tk, R3);
      a.aluImm(ALU.ADD, R2, 1), a.stx(8, R8, ti, R2);
      a.ja(cont);
      a.place(differ);
      a.jmpImm(JMP.JEQ, R3, 0, zero);
      a.aluImm(ALU.SUB, R3, 1), failAt(R3, R3), a.stx(8, R8, tk, R3);
      a.ja(cont);
      a.place(zero);
      a.movImm(R3, 0), setFail(R2, R3);
      a.aluImm(ALU.ADD, R2, 1), a.stx(8, R8, ti, R2);
    });

    // The scan: index and strstr stop at the first match at or after start; rindex keeps the
    // last match at or before start.
    if (kind === 'index') a.ldx(8, R2, R8, start);
    else a.movImm(R2, 0);
    a.stx(8, R8, ti, R2), a.st(8, R8, tk, 0);
    loop(c, R1, 2 * n + 2, (brk, cont) => {
      a.ldx(8, R2, R8, ti), a.ldx(8, R3, R8, tk), a.ldx(8, R4, R8, subT);
      const partial = a.label('kmp.partial');
      a.jmp(JMP.JNE, R3, R4, partial);
      // A match at i - sublen.
      a.mov(R5, R2), a.alu(ALU.SUB, R5, R4);
      if (kind === 'rindex') {
        a.ldx(8, R0, R8, start);
        a.jmp(JMP.JSGT, R5, R0, done);
        a.stx(8, R8, res, R5);
        a.aluImm(ALU.SUB, R3, 1);
        leaveImm(a, JMP.JGE, R3, n, brk);
        failAt(R3, R3), a.stx(8, R8, tk, R3);
        a.ja(cont);
      } else {
        if (kind === 'strstr') arg(c, 0, R0), a.alu(ALU.ADD, R5, R0);
        a.stx(8, R8, res, R5);
        a.ja(done);
      }
      a.place(partial);
      a.ldx(8, R4, R8, lenT);
      leave(a, JMP.JGE, R2, R4, brk);
      leaveImm(a, JMP.JGE, R2, n, brk);
      leaveImm(a, JMP.JGE, R3, n, brk);
      loadByte(c, R5, A, R2, R4);
      loadByte(c, R0, B, R3, R4);
      const differ = a.label('kmp.differ'), zero = a.label('kmp.zero');
      a.jmp(JMP.JNE, R5, R0, differ);
      a.aluImm(ALU.ADD, R2, 1), a.stx(8, R8, ti, R2);
      a.aluImm(ALU.ADD, R3, 1), a.stx(8, R8, tk, R3);
      a.ja(cont);
      a.place(differ);
      a.jmpImm(JMP.JEQ, R3, 0, zero);
      a.aluImm(ALU.SUB, R3, 1), failAt(R3, R3), a.stx(8, R8, tk, R3);
      a.ja(cont);
      a.place(zero);
      a.aluImm(ALU.ADD, R2, 1), a.stx(8, R8, ti, R2);
    });
    a.place(done);
    resultTemp(c, res);
  };
}

/** strchr(s, c) / strrchr(s, c): the address of the first / last c in s (the NUL counts), or NULL. */
function strchr(last: boolean): Subroutine {
  return (c) => {
    const { t, n } = c, a = t.a, A = t.env.mem.cmpA;
    const res = temp(t, 0);
    readStr(c, 0, A);
    arg(c, 1, R7), a.aluImm(ALU.AND, R7, 0xff);
    a.st(8, R8, res, 0);
    loop(c, R1, n, (brk) => {
      loadByte(c, R2, A, R1);
      const other = a.label('strchr.other');
      a.jmp(JMP.JNE, R2, R7, other);
      arg(c, 0, R3), a.alu(ALU.ADD, R3, R1), a.stx(8, R8, res, R3);
      if (!last) a.ja(brk);
      a.place(other);
      leaveImm(a, JMP.JEQ, R2, 0, brk);
    });
    resultTemp(c, res);
  };
}

function caseMap(upper: boolean): Subroutine {
  return (c) => {
    const { t, n } = c, a = t.a;
    const out = t.stringSlot(n);
    readStr(c, 0, out);
    const from = upper ? 0x61 : 0x41; // 'a' : 'A'
    loop(c, R1, n, (brk, cont) => {
      loadByte(c, R2, out, R1);
      leaveImm(a, JMP.JEQ, R2, 0, brk);
      a.mov(R3, R2), a.aluImm(ALU.SUB, R3, from);
      a.jmpImm(JMP.JGE, R3, 26, cont);
      a.aluImm(upper ? ALU.SUB : ALU.ADD, R2, 0x20);
      storeByte(c, out, R1, R2);
    });
    resultAddr(c, out);
  };
}

/** lltostr(value, [base]): base 10 signed; other bases unsigned, with 0 / 0x prefixes for 8 / 16. */
function lltostr(c: Call): void {
  const { t } = c, a = t.a;
  const SIZE = 72; // 64 binary digits, a prefix and the NUL
  const out = t.stringSlot(SIZE), orig = temp(t, 0);
  baseArg(c, 1);
  arg(c, 0, R6);
  a.stx(8, R8, orig, R6);
  const pos = a.label('lltostr.pos');
  a.jmpImm(JMP.JNE, R7, 10, pos);
  a.jmpImm(JMP.JSGE, R6, 0, pos);
  a.aluImm(ALU.NEG, R6, 0);
  a.place(pos);
  a.movImm(R4, SIZE - 1);
  a.st(1, R8, out + SIZE - 1, 0);
  const put = (ch: number | null) => {
    a.aluImm(ALU.SUB, R4, 1);
    const r = R3;
    if (ch !== null) a.movImm(r, ch);
    a.mov(R5, R8), a.alu(ALU.ADD, R5, R4), a.stx(1, R5, out, r);
  };
  // The value left and the position carry from one digit to the next in mem, so the verifier
  // checks the body once or twice instead of once per digit (loop()).
  const value = temp(t, 1), at = temp(t, 2);
  a.stx(8, R8, value, R6);
  a.stx(8, R8, at, R4);
  loop(c, R1, 64, (brk) => {
    a.ldx(8, R6, R8, value);
    a.ldx(8, R4, R8, at);
    leaveImm(a, JMP.JEQ, R6, 0, brk);
    // 64 digits at most from SIZE - 1 down: never below 7, but the verifier must see it.
    leaveImm(a, JMP.JGT, R4, SIZE - 1, brk);
    leaveImm(a, JMP.JLT, R4, 8, brk);
    a.mov(R3, R6), a.alu(ALU.MOD, R3, R7);
    const letter = a.label('lltostr.letter'), emit = a.label('lltostr.emit');
    a.jmpImm(JMP.JGE, R3, 10, letter);
    a.aluImm(ALU.ADD, R3, 0x30);
    a.ja(emit);
    a.place(letter);
    a.aluImm(ALU.ADD, R3, 0x61 - 10);
    a.place(emit);
    put(null);
    a.alu(ALU.DIV, R6, R7);
    a.stx(8, R8, value, R6);
    a.stx(8, R8, at, R4);
  });
  a.ldx(8, R4, R8, at);
  // Room for the prefix and sign below the digits (at >= 7 after 64 digits; shown to the verifier).
  const low = a.label('lltostr.low'), high = a.label('lltostr.high');
  a.jmpImm(JMP.JGE, R4, 4, low);
  a.movImm(R4, 4);
  a.place(low);
  a.jmpImm(JMP.JLE, R4, SIZE - 1, high);
  a.movImm(R4, SIZE - 1);
  a.place(high);
  a.ldx(8, R6, R8, orig);
  const skip1 = a.label(), skip2 = a.label(), zero = a.label(), skip3 = a.label(), skip4 = a.label();
  // i == 0 && base == 16: '0'
  a.jmpImm(JMP.JNE, R6, 0, skip1);
  a.jmpImm(JMP.JNE, R7, 16, skip1);
  put(0x30);
  a.place(skip1);
  a.jmpImm(JMP.JNE, R7, 16, skip2);
  put(0x78); // 'x'
  a.place(skip2);
  a.jmpImm(JMP.JEQ, R6, 0, zero);
  a.jmpImm(JMP.JEQ, R7, 8, zero);
  a.jmpImm(JMP.JEQ, R7, 16, zero);
  a.ja(skip3);
  a.place(zero);
  put(0x30);
  a.place(skip3);
  a.jmpImm(JMP.JSGE, R6, 0, skip4);
  a.jmpImm(JMP.JNE, R7, 10, skip4);
  put(0x2d); // '-'
  a.place(skip4);
  resultAddr(c, out, R4);
}

/** strtoll(s, [base]): blanks, a sign, "0x" for base 16, then digits while they are < base. */
function strtoll(c: Call): void {
  const { t, n } = c, a = t.a, A = t.env.mem.cmpA;
  const val = temp(t, 0), pos = temp(t, 1), neg = temp(t, 2);
  baseArg(c, 1);
  readStr(c, 0, A);
  a.st(8, R8, val, 0), a.st(8, R8, pos, 0), a.st(8, R8, neg, 0);
  loop(c, R1, n, (brk, cont) => {
    loadByte(c, R2, A, R1);
    a.stx(8, R8, pos, R1);
    const blank = a.label('strtoll.blank');
    a.jmpImm(JMP.JEQ, R2, 0x20, blank);
    leaveImm(a, JMP.JNE, R2, 0x09, brk);
    a.place(blank);
    a.ja(cont);
  });
  const at = (reg: number, plus: number, miss: Label) => {
    a.ldx(8, reg, R8, pos);
    if (plus) a.aluImm(ALU.ADD, reg, plus);
    leaveImm(a, JMP.JGE, reg, n, miss);
    loadByte(c, reg, A, reg);
  };
  const digits = a.label('strtoll.digits');
  // An optional sign.
  const notMinus = a.label('strtoll.notminus'), adv = a.label('strtoll.adv'), noSign = a.label('strtoll.nosign');
  at(R2, 0, digits);
  a.jmpImm(JMP.JNE, R2, 0x2d, notMinus);
  a.st(8, R8, neg, 1);
  a.ja(adv);
  a.place(notMinus);
  a.jmpImm(JMP.JNE, R2, 0x2b, noSign);
  a.place(adv);
  a.ldx(8, R3, R8, pos), a.aluImm(ALU.ADD, R3, 1), a.stx(8, R8, pos, R3);
  a.place(noSign);
  // "0x"/"0X" followed by a hex digit, for base 16.
  a.jmpImm(JMP.JNE, R7, 16, digits);
  at(R2, 0, digits);
  a.jmpImm(JMP.JNE, R2, 0x30, digits);
  at(R2, 1, digits);
  a.aluImm(ALU.OR, R2, 0x20);
  a.jmpImm(JMP.JNE, R2, 0x78, digits);
  at(R2, 2, digits);
  const hex = a.label('strtoll.hex');
  a.mov(R3, R2), a.aluImm(ALU.SUB, R3, 0x30);
  a.jmpImm(JMP.JLT, R3, 10, hex);
  a.aluImm(ALU.OR, R2, 0x20), a.aluImm(ALU.SUB, R2, 0x61);
  a.jmpImm(JMP.JGE, R2, 6, digits);
  a.place(hex);
  a.ldx(8, R3, R8, pos), a.aluImm(ALU.ADD, R3, 2), a.stx(8, R8, pos, R3);
  a.place(digits);
  loop(c, R1, n, (brk) => {
    a.ldx(8, R2, R8, pos), a.alu(ALU.ADD, R2, R1);
    leaveImm(a, JMP.JGE, R2, n, brk);
    loadByte(c, R2, A, R2);
    const have = a.label('strtoll.have'), notLower = a.label('strtoll.notlower'), notUpper = a.label('strtoll.notupper');
    a.mov(R3, R2), a.aluImm(ALU.SUB, R3, 0x30);
    a.jmpImm(JMP.JLT, R3, 10, have);
    a.mov(R3, R2), a.aluImm(ALU.SUB, R3, 0x61);
    a.jmpImm(JMP.JGE, R3, 26, notLower);
    a.aluImm(ALU.ADD, R3, 10);
    a.ja(have);
    a.place(notLower);
    a.mov(R3, R2), a.aluImm(ALU.SUB, R3, 0x41);
    a.jmpImm(JMP.JGE, R3, 26, notUpper);
    a.aluImm(ALU.ADD, R3, 10);
    a.ja(have);
    a.place(notUpper);
    a.ja(brk);
    a.place(have);
    leave(a, JMP.JGE, R3, R7, brk);
    a.ldx(8, R2, R8, val), a.alu(ALU.MUL, R2, R7), a.alu(ALU.ADD, R2, R3), a.stx(8, R8, val, R2);
  });
  a.ldx(8, R0, R8, val);
  a.ldx(8, R1, R8, neg);
  const positive = a.label('strtoll.positive');
  a.jmpImm(JMP.JEQ, R1, 0, positive);
  a.aluImm(ALU.NEG, R0, 0);
  a.place(positive);
  c.t.putReg(R0, c.rd);
}

/** basename(s) / dirname(s), as DTrace computes them (trailing slashes ignored, "" gives "."). */
function pathPart(dir: boolean): Subroutine {
  return (c) => {
    const { t, n } = c, a = t.a, A = t.env.mem.cmpA;
    const out = t.stringSlot(n);
    const lastbase = temp(t, 0), firstbase = temp(t, 1), lastdir = temp(t, 2), phase = temp(t, 3);
    const done = a.label('path.done');
    const constant = (s: string) => {
      for (let i = 0; i < s.length; i++) a.st(1, R8, out + i, s.charCodeAt(i));
      a.st(1, R8, out + s.length, 0);
      a.ja(done);
    };
    readStr(c, 0, A);
    a.mov(R6, R0), a.aluImm(ALU.SUB, R6, 1);
    const nonEmpty = a.label('path.nonempty');
    a.jmpImm(JMP.JNE, R6, 0, nonEmpty);
    constant('.');
    a.place(nonEmpty);
    for (const off of [lastbase, firstbase, lastdir]) a.st(8, R8, off, -1);
    a.st(8, R8, phase, 0);
    // Walk backwards: the last non-slash, the slash before it, the last non-slash before that.
    loop(c, R1, n, (brk, cont) => {
      a.mov(R2, R6), a.aluImm(ALU.SUB, R2, 1), a.alu(ALU.SUB, R2, R1);
      leaveImm(a, JMP.JGE, R2, n, brk); // also < 0
      loadByte(c, R3, A, R2);
      a.ldx(8, R4, R8, phase);
      const p1 = a.label('path.p1'), p2 = a.label('path.p2');
      a.jmpImm(JMP.JNE, R4, 0, p1);
      a.jmpImm(JMP.JEQ, R3, 0x2f, cont);
      a.stx(8, R8, lastbase, R2), a.st(8, R8, phase, 1);
      a.ja(cont);
      a.place(p1);
      a.jmpImm(JMP.JNE, R4, 1, p2);
      a.jmpImm(JMP.JNE, R3, 0x2f, cont);
      a.aluImm(ALU.ADD, R2, 1), a.stx(8, R8, firstbase, R2), a.st(8, R8, phase, 2);
      a.ja(cont);
      a.place(p2);
      a.jmpImm(JMP.JEQ, R3, 0x2f, cont);
      a.stx(8, R8, lastdir, R2);
      a.ja(brk);
    });
    const some = a.label('path.some');
    a.ldx(8, R7, R8, lastbase); // end
    a.jmpImm(JMP.JNE, R7, -1, some);
    constant('/'); // only slashes
    a.place(some);
    a.ldx(8, R6, R8, firstbase); // start
    if (dir) {
      const hasSlash = a.label('path.slash'), copy = a.label('path.copy');
      a.jmpImm(JMP.JNE, R6, -1, hasSlash);
      constant('.');
      a.place(hasSlash);
      a.movImm(R6, 0);
      a.ldx(8, R7, R8, lastdir);
      a.jmpImm(JMP.JNE, R7, -1, copy);
      a.movImm(R7, 0);
      a.place(copy);
    } else {
      const ok = a.label('path.start');
      a.jmpImm(JMP.JNE, R6, -1, ok);
      a.movImm(R6, 0);
      a.place(ok);
    }
    a.st(1, R8, out, 0);
    loop(c, R1, n - 1, (brk) => {
      a.mov(R2, R6), a.alu(ALU.ADD, R2, R1);
      leave(a, JMP.JSGT, R2, R7, brk);
      leaveImm(a, JMP.JGE, R2, n, brk);
      loadByte(c, R3, A, R2);
      storeByte(c, out, R1, R3, R4);
      a.st(1, R4, out + 1, 0);
    });
    a.place(done);
    resultAddr(c, out);
  };
}

/**
 * cleanpath(s): "//", "/./" and "/../" resolved as DTrace does (its quirks included). DTrace's
 * loop with look-ahead reads and a backing-up inner loop is run here as a state machine, one
 * step per iteration, so that the verifier sees a single loop.
 */
function cleanpath(c: Call): void {
  const { t, n } = c, a = t.a, A = t.env.mem.cmpA;
  const out = t.stringSlot(n);
  const ti = temp(t, 0), tj = temp(t, 1), tc = temp(t, 2), ts = temp(t, 3);
  readStr(c, 0, A);
  a.st(8, R8, ti, 0), a.st(8, R8, tj, 0), a.st(8, R8, tc, 0), a.st(8, R8, ts, 0);
  const end = a.label('clean.end');
  const state = (s: number) => a.st(8, R8, ts, s);
  /** out[j++] = ch (a constant) or the current character. */
  const put = (ch: number | 'c') => {
    a.ldx(8, R2, R8, tj);
    a.jmpImm(JMP.JGE, R2, n, end);
    if (ch === 'c') a.ldx(8, R3, R8, tc);
    else a.movImm(R3, ch);
    storeByte(c, out, R2, R3, R4);
    a.aluImm(ALU.ADD, R2, 1), a.stx(8, R8, tj, R2);
  };
  /** c = src[i++]; then go to state s. */
  const read = (s: number) => {
    a.ldx(8, R2, R8, ti);
    a.jmpImm(JMP.JGE, R2, n, end);
    loadByte(c, R3, A, R2, R4);
    a.stx(8, R8, tc, R3);
    a.aluImm(ALU.ADD, R2, 1), a.stx(8, R8, ti, R2);
    state(s);
  };
  loop(c, R1, 4 * n + 8, (brk, cont) => {
    const S = [0, 1, 2, 3, 4, 5, 6].map((i) => a.label(`clean.s${i}`));
    a.ldx(8, R6, R8, ts);
    for (let i = 1; i < S.length; i++) a.jmpImm(JMP.JEQ, R6, i, S[i]);
    // S0: read the next character.
    a.place(S[0]);
    read(1);
    a.ja(cont);
    // S1: stop when the output is nearly full; copy a character that is not a slash.
    a.place(S[1]);
    a.ldx(8, R2, R8, tj), a.aluImm(ALU.ADD, R2, 5);
    leaveImm(a, JMP.JGE, R2, n, brk);
    a.ldx(8, R6, R8, tc);
    const slash = a.label('clean.slash');
    a.jmpImm(JMP.JEQ, R6, 0x2f, slash);
    put('c');
    a.ldx(8, R6, R8, tc);
    leaveImm(a, JMP.JEQ, R6, 0, brk);
    state(0);
    a.ja(cont);
    a.place(slash);
    read(2);
    a.ja(cont);
    // S2: after "/"; S3: after "/."
    for (const [st, prefix] of [[2, [0x2f]], [3, [0x2f, 0x2e]]] as const) {
      a.place(S[st]);
      const again = a.label('clean.again'), dot = a.label('clean.dot');
      a.ldx(8, R6, R8, tc);
      a.jmpImm(JMP.JEQ, R6, 0x2f, again);
      a.jmpImm(JMP.JEQ, R6, 0x2e, dot);
      for (const ch of prefix) put(ch);
      put('c');
      a.ldx(8, R6, R8, tc);
      leaveImm(a, JMP.JEQ, R6, 0, brk);
      state(0);
      a.ja(cont);
      a.place(again);
      state(1);
      a.ja(cont);
      a.place(dot);
      read(st + 1);
      a.ja(cont);
    }
    // S4: after "/..": another name, or a parent directory to back up over.
    a.place(S[4]);
    {
      const up = a.label('clean.up');
      a.ldx(8, R6, R8, tc);
      a.jmpImm(JMP.JEQ, R6, 0x2f, up);
      a.jmpImm(JMP.JEQ, R6, 0, up);
      put(0x2f), put(0x2e), put(0x2e), put('c');
      state(0);
      a.ja(cont);
      a.place(up);
      a.ldx(8, R2, R8, ti), a.aluImm(ALU.SUB, R2, 1), a.stx(8, R8, ti, R2);
      state(5);
      a.ja(cont);
    }
    // S5: back up the output to the previous slash, one character per step.
    a.place(S[5]);
    {
      const stop = a.label('clean.stop');
      a.ldx(8, R2, R8, tj);
      a.jmpImm(JMP.JEQ, R2, 0, stop);
      a.aluImm(ALU.SUB, R2, 1), a.stx(8, R8, tj, R2);
      leaveImm(a, JMP.JGE, R2, n, brk);
      loadByte(c, R3, out, R2, R4);
      a.jmpImm(JMP.JEQ, R3, 0x2f, stop);
      a.ja(cont);
      a.place(stop);
      state(6);
      a.ja(cont);
    }
    // S6: at the end of the string the slash stays (and is then cut by the final NUL).
    a.place(S[6]);
    a.ldx(8, R6, R8, tc);
    const more = a.label('clean.more');
    a.jmpImm(JMP.JNE, R6, 0, more);
    a.ldx(8, R2, R8, tj), a.aluImm(ALU.ADD, R2, 1), a.stx(8, R8, tj, R2);
    a.ja(brk);
    a.place(more);
    state(0);
  });
  a.place(end);
  // out[min(j, n - 1)] = NUL
  a.ldx(8, R2, R8, tj);
  const inside = a.label('clean.inside');
  a.jmpImm(JMP.JLT, R2, n, inside);
  a.movImm(R2, n - 1);
  a.place(inside);
  a.movImm(R3, 0);
  storeByte(c, out, R2, R3, R4);
  // DTrace for Linux then drops a trailing "/." and a trailing "/" ("/a/b/" is "/a/b", "/a/."
  // is "/a"); the root stays "/". tj := the length.
  a.st(8, R8, tj, 0);
  loop(c, R1, n, (brk) => {
    loadByte(c, R3, out, R1, R4);
    leaveImm(a, JMP.JEQ, R3, 0, brk);
    a.aluImm(ALU.ADD, R1, 1), a.stx(8, R8, tj, R1);
  });
  for (const ch of [0x2e, 0x2f]) {
    const keep = a.label('clean.keep');
    a.ldx(8, R2, R8, tj);
    a.jmpImm(JMP.JLT, R2, 2, keep);
    a.jmpImm(JMP.JGT, R2, n, keep);
    a.aluImm(ALU.SUB, R2, 1);
    loadByte(c, R3, out, R2, R4);
    a.jmpImm(JMP.JNE, R3, ch, keep);
    if (ch === 0x2e) {
      a.mov(R6, R2), a.aluImm(ALU.SUB, R6, 1);
      loadByte(c, R3, out, R6, R4);
      a.jmpImm(JMP.JNE, R3, 0x2f, keep);
    }
    a.stx(8, R8, tj, R2);
    a.movImm(R3, 0);
    storeByte(c, out, R2, R3, R4);
    a.place(keep);
  }
  resultAddr(c, out);
}

// ---------------------------------------------------------------- memory

/** copyin(addr, size): user memory into a scratch slot of strsize bytes. */
function copyin(c: Call): void {
  const { t, n } = c, a = t.a;
  const out = t.allocaSlot(n);
  arg(c, 1, R2);
  faultUnless(c, (ok) => a.jmpImm(JMP.JLE, R2, n, ok), D.DTRACEFLT_NOSCRATCH);
  arg(c, 0, R3);
  a.mov(R1, R8), a.aluImm(ALU.ADD, R1, out);
  a.call(HELPER.probe_read_user);
  arg(c, 0, R1);
  faultUnless(c, (ok) => a.jmpImm(JMP.JEQ, R0, 0, ok), D.DTRACEFLT_BADADDR, R1);
  resultAddr(c, out);
}

/** copyinstr(addr, [maxlen]): a user string, at most strsize - 1 (or maxlen) characters. */
function copyinstr(c: Call): void {
  const { t, n } = c, a = t.a;
  const out = t.stringSlot(n);
  // At most strsize bytes (n - 1 here) with the NUL, as DTrace (illumos and Linux alike) copies.
  // A size below strsize keeps that many characters, as illumos does (copyinstr(buf, len) of a
  // write(2) is the whole buffer); DTrace for Linux keeps one fewer.
  a.movImm(R2, n - 1);
  if (c.nargs > 1) {
    const keep = a.label('copyinstr.size');
    arg(c, 1, R4);
    a.jmpImm(JMP.JGE, R4, n - 1, keep);
    a.mov(R2, R4), a.aluImm(ALU.ADD, R2, 1);
    a.place(keep);
  }
  arg(c, 0, R3);
  a.mov(R1, R8), a.aluImm(ALU.ADD, R1, out);
  a.call(HELPER.probe_read_user_str);
  arg(c, 0, R1);
  faultUnless(c, (ok) => a.jmpImm(JMP.JSGT, R0, 0, ok), D.DTRACEFLT_BADADDR, R1);
  resultAddr(c, out);
}

/**
 * Copy `size` bytes (R7) from mem.cmpA to the scratch address in argument `destArg`, which must
 * lie with its size inside this CPU's scratch area (else a bad-address fault, as DTrace's
 * dtrace_inscratch check gives).
 */
function toScratch(c: Call, destArg: number): void {
  const { t, n } = c, a = t.a, mem = t.env.mem;
  // R6 = dest offset from the start of the scratch area
  arg(c, destArg, R6);
  a.ldx(8, R1, R8, mem.self), a.aluImm(ALU.ADD, R1, mem.scratch);
  a.alu(ALU.SUB, R6, R1);
  const bad = a.label('scratch.bad'), ok = a.label('scratch.ok');
  a.jmpImm(JMP.JGE, R6, mem.scratchMax, bad);
  a.mov(R1, R6), a.alu(ALU.ADD, R1, R7);
  a.jmpImm(JMP.JLE, R1, mem.scratchMax, ok);
  a.place(bad);
  arg(c, destArg, R1);
  t.fault(D.DTRACEFLT_BADADDR, c.pc, R1, c.next);
  a.place(ok);
  loop(c, R1, n, (brk) => {
    leave(a, JMP.JGE, R1, R7, brk);
    a.mov(R2, R6), a.alu(ALU.ADD, R2, R1);
    leaveImm(a, JMP.JGE, R2, mem.scratchMax, brk);
    loadByte(c, R3, mem.cmpA, R1);
    storeByte(c, mem.scratch, R2, R3);
  });
}

/** Read R7 bytes (at most strsize, else out of scratch) from argument srcArg into mem.cmpA. */
function readInto(c: Call, srcArg: number, user: boolean): void {
  const { t, n } = c, a = t.a;
  faultUnless(c, (ok) => a.jmpImm(JMP.JLE, R7, n, ok), D.DTRACEFLT_NOSCRATCH);
  a.mov(R1, R8), a.aluImm(ALU.ADD, R1, t.env.mem.cmpA), a.mov(R2, R7);
  arg(c, srcArg, R3);
  a.call(user ? HELPER.probe_read_user : HELPER.probe_read_kernel);
  arg(c, srcArg, R1);
  faultUnless(c, (ok) => a.jmpImm(JMP.JEQ, R0, 0, ok), D.DTRACEFLT_BADADDR, R1);
}

/** copyinto(addr, size, dest): user memory into scratch memory (from alloca). */
function copyinto(c: Call): void {
  arg(c, 1, R7);
  readInto(c, 0, true);
  toScratch(c, 2);
}

/** bcopy(src, dest, size): kernel memory into scratch memory. */
function bcopy(c: Call): void {
  arg(c, 2, R7);
  readInto(c, 0, false);
  toScratch(c, 1);
}

/**
 * memstr(addr, c, size): the size - 1 bytes at addr as a string, each NUL made c (an argument
 * area's NUL-separated words joined by spaces); cut at strsize like every string result.
 * size 0 gives NULL, as FreeBSD's does.
 */
function memstr(c: Call): void {
  const { t, n } = c, a = t.a;
  const out = t.stringSlot(n);
  const done = a.label('memstr.done'), some = a.label('memstr.some');
  arg(c, 2, R7);
  a.jmpImm(JMP.JNE, R7, 0, some);
  a.movImm(R0, 0), t.putReg(R0, c.rd);
  a.ja(done);
  a.place(some);
  a.aluImm(ALU.SUB, R7, 1);
  const fits = a.label('memstr.fits');
  a.jmpImm(JMP.JLE, R7, n, fits);
  a.movImm(R7, n);
  a.place(fits);
  a.mov(R1, R8), a.aluImm(ALU.ADD, R1, out), a.mov(R2, R7);
  arg(c, 0, R3);
  a.call(HELPER.probe_read_kernel);
  arg(c, 0, R1);
  faultUnless(c, (ok) => a.jmpImm(JMP.JEQ, R0, 0, ok), D.DTRACEFLT_BADADDR, R1);
  loop(c, R1, n, (brk, cont) => {
    leave(a, JMP.JGE, R1, R7, brk);
    loadByte(c, R2, out, R1);
    a.jmpImm(JMP.JNE, R2, 0, cont);
    arg(c, 1, R2);
    storeByte(c, out, R1, R2);
  });
  a.mov(R5, R8), a.alu(ALU.ADD, R5, R7), a.st(1, R5, out, 0);
  resultAddr(c, out);
  a.place(done);
}

/** alloca(size): zeroed scratch memory, at most strsize bytes per call (or -x scratchsize). */
function alloca(c: Call): void {
  const { t } = c, a = t.a;
  // strsize bytes, or what is left of a smaller -x scratchsize; more is out of scratch when it
  // runs (nothing left: always, behind a branch never taken so the code after stays reachable).
  // A constant size (alloca(sizeof (T))) takes just that, rounded up to 8 bytes, so that a store
  // past it is out of what the clause has taken (translate.ts, storeRegions).
  const k = t.tuple[0]?.constant;
  const want = k !== undefined && k >= 0n && k <= BigInt(c.n) ? Math.max(8, Math.ceil(Number(k) / 8) * 8) : c.n;
  const n = Math.min(want, t.scratchLeft() & ~7);
  if (n <= 0) {
    const after = a.label('alloca.after');
    a.jmpImm(JMP.JEQ, R8, 0, after);
    t.fault(D.DTRACEFLT_NOSCRATCH, c.pc, undefined, c.next);
    a.place(after);
    a.movImm(R0, 0), t.putReg(R0, c.rd);
    return;
  }
  const out = t.allocaSlot(n);
  arg(c, 0, R1);
  faultUnless(c, (ok) => a.jmpImm(JMP.JLE, R1, n, ok), D.DTRACEFLT_NOSCRATCH);
  a.zero(R8, out, Math.ceil(n / 8) * 8);
  resultAddr(c, out);
}

// ---------------------------------------------------------------- integers

function swap(bits: 16 | 32 | 64): Subroutine {
  return (c) => {
    arg(c, 0, R0);
    bswap(c, R0, bits);
    c.t.putReg(R0, c.rd);
  };
}

/** Linux dev_t in the kernel: 12 bits of major above 20 bits of minor. */
function devPart(major: boolean): Subroutine {
  return (c) => {
    const a = c.t.a;
    arg(c, 0, R0);
    if (major) a.mov32(R0, R0), a.aluImm(ALU.RSH, R0, 20);
    else a.aluImm(ALU.AND, R0, 0xfffff);
    c.t.putReg(R0, c.rd);
  };
}

function rand(c: Call): void {
  const a = c.t.a;
  a.call(HELPER.get_prandom_u32);
  a.movsx(R0, R0, 32);
  c.t.putReg(R0, c.rd);
}

/** progenyof(pid): is the current process pid or one of its descendants? (64 generations.) */
function progenyof(c: Call): void {
  const { t } = c, a = t.a, task = t.env.task;
  if (!task) throw new TranslateError('progenyof( ) needs task_struct offsets from BTF', t.ecbIndex, t.actionIndex);
  const res = temp(t, 0), pid = temp(t, 1);
  a.st(8, R8, res, 0);
  arg(c, 0, R1), a.movsx(R1, R1, 32), a.stx(8, R8, pid, R1);
  emitTask(t);
  a.mov(R6, R0);
  // R7 counts generations: a callee-saved register keeps its exact value across the helpers.
  loop(c, R7, 64, (brk) => {
    a.mov(R0, R6), a.aluImm(ALU.ADD, R0, task.tgid);
    t.readKernel(R0, 4);
    a.movsx(R0, R0, 32);
    a.ldx(8, R1, R8, pid);
    const other = a.label('progeny.other');
    a.jmp(JMP.JNE, R0, R1, other);
    a.st(8, R8, res, 1);
    a.ja(brk);
    a.place(other);
    a.mov(R0, R6), a.aluImm(ALU.ADD, R0, task.realParent);
    t.readKernel(R0, 8);
    leaveImm(a, JMP.JEQ, R0, 0, brk);
    leave(a, JMP.JEQ, R0, R6, brk);
    a.mov(R6, R0);
  }, true);
  resultTemp(c, res);
}

// ---------------------------------------------------------------- network addresses

const AF_INET = 2, AF_INET6 = 10; // Linux's numbers

/** The dotted quad of the 4 bytes at the address in argument i. */
function ipv4(c: Call, i: number): void {
  const { t } = c, a = t.a, A = t.env.mem.cmpA;
  const out = t.stringSlot(16);
  a.mov(R1, R8), a.aluImm(ALU.ADD, R1, A), a.movImm(R2, 4);
  arg(c, i, R3);
  a.call(HELPER.probe_read_kernel);
  arg(c, i, R1);
  faultUnless(c, (ok) => a.jmpImm(JMP.JEQ, R0, 0, ok), D.DTRACEFLT_BADADDR, R1);
  a.movImm(R4, 0); // position in out
  const emit = (reg: number) => {
    a.mov(R5, R8), a.alu(ALU.ADD, R5, R4), a.stx(1, R5, out, reg), a.aluImm(ALU.ADD, R4, 1);
  };
  for (let b = 0; b < 4; b++) {
    a.ldx(1, R2, R8, A + b);
    const tens = a.label('ip.tens'), tensAlways = a.label('ip.tens2'), ones = a.label('ip.ones');
    a.jmpImm(JMP.JLT, R2, 100, tens);
    a.mov(R3, R2), a.aluImm(ALU.DIV, R3, 100), a.aluImm(ALU.ADD, R3, 0x30), emit(R3);
    a.aluImm(ALU.MOD, R2, 100);
    a.ja(tensAlways);
    a.place(tens);
    a.jmpImm(JMP.JLT, R2, 10, ones);
    a.place(tensAlways);
    a.mov(R3, R2), a.aluImm(ALU.DIV, R3, 10), a.aluImm(ALU.ADD, R3, 0x30), emit(R3);
    a.aluImm(ALU.MOD, R2, 10);
    a.place(ones);
    a.aluImm(ALU.ADD, R2, 0x30), emit(R2);
    if (b < 3) a.movImm(R3, 0x2e), emit(R3);
  }
  a.movImm(R3, 0), emit(R3);
  resultAddr(c, out);
}

function inetNtop(c: Call): void {
  const { t } = c, a = t.a;
  arg(c, 0, R1);
  const v4 = a.label('ntop.v4'), v6 = a.label('ntop.v6'), done = a.label('ntop.done');
  a.jmpImm(JMP.JEQ, R1, AF_INET, v4);
  a.jmpImm(JMP.JEQ, R1, AF_INET6, v6);
  // Any other family is an illegal operation, as in DTrace.
  t.fault(D.DTRACEFLT_ILLOP, c.pc, undefined, c.next);
  a.place(v6);
  emitInet6(t, c.rd, c.pc, c.next, 1, false);
  a.ja(done);
  a.place(v4);
  ipv4(c, 1);
  a.place(done);
}

/**
 * The compiler's check of a declared array's index (index, count, size): index, or DTrace for
 * Linux's BADINDEX fault, its value the byte offset over the element size (so -1 of an int array
 * shows as 2^62 - 1, as there).
 */
function arrayBound(c: Call): void {
  const a = c.t.a;
  arg(c, 0, R0), arg(c, 2, R2);
  a.alu(ALU.MUL, R0, R2);
  arg(c, 1, R1), a.alu(ALU.MUL, R1, R2);
  const ok = a.label('bound.ok'), shown = a.label('bound.shown');
  a.jmp(JMP.JLT, R0, R1, ok);
  a.jmpImm(JMP.JEQ, R2, 0, shown);
  a.alu(ALU.DIV, R0, R2);
  a.place(shown);
  c.t.fault(D.DTRACEFLT_BADINDEX, c.pc, R0, c.next);
  a.place(ok);
  arg(c, 0, R0);
  c.t.putReg(R0, c.rd);
}

const SUBROUTINES: Partial<Record<number, Subroutine>> = {
  [D.DIF_SUBR_ARRAY_BOUND]: arrayBound,
  [D.DIF_SUBR_RAND]: rand,
  [D.DIF_SUBR_SPECULATION]: (c) => emitSpeculationSubr(c.t, c.rd),
  [D.DIF_SUBR_COPYIN]: copyin,
  [D.DIF_SUBR_COPYINSTR]: copyinstr,
  [D.DIF_SUBR_COPYINTO]: copyinto,
  [D.DIF_SUBR_PROGENYOF]: progenyof,
  [D.DIF_SUBR_STRLEN]: strlen,
  [D.DIF_SUBR_ALLOCA]: alloca,
  [D.DIF_SUBR_BCOPY]: bcopy,
  [D.DIF_SUBR_GETMAJOR]: devPart(true),
  [D.DIF_SUBR_GETMINOR]: devPart(false),
  [D.DIF_SUBR_STRJOIN]: strjoin,
  [D.DIF_SUBR_LLTOSTR]: lltostr,
  [D.DIF_SUBR_BASENAME]: pathPart(false),
  [D.DIF_SUBR_DIRNAME]: pathPart(true),
  [D.DIF_SUBR_CLEANPATH]: cleanpath,
  [D.DIF_SUBR_STRCHR]: strchr(false),
  [D.DIF_SUBR_STRRCHR]: strchr(true),
  [D.DIF_SUBR_STRSTR]: search('strstr'),
  [D.DIF_SUBR_SUBSTR]: substr,
  [D.DIF_SUBR_INDEX]: search('index'),
  [D.DIF_SUBR_RINDEX]: search('rindex'),
  [D.DIF_SUBR_HTONS]: swap(16),
  [D.DIF_SUBR_HTONL]: swap(32),
  [D.DIF_SUBR_HTONLL]: swap(64),
  [D.DIF_SUBR_NTOHS]: swap(16),
  [D.DIF_SUBR_NTOHL]: swap(32),
  [D.DIF_SUBR_NTOHLL]: swap(64),
  [D.DIF_SUBR_INET_NTOP]: inetNtop,
  [D.DIF_SUBR_INET_NTOA]: (c) => ipv4(c, 0),
  [D.DIF_SUBR_INET_NTOA6]: (c) => emitInet6(c.t, c.rd, c.pc, c.next, 0, true),
  [D.DIF_SUBR_JSON]: (c) => emitJson(c.t, c.rd, c.pc, c.next),
  [D.DIF_SUBR_TOUPPER]: caseMap(true),
  [D.DIF_SUBR_TOLOWER]: caseMap(false),
  [D.DIF_SUBR_MEMSTR]: memstr,
  [D.DIF_SUBR_STRTOLL]: strtoll,
  [D.DIF_SUBR_COPYOUT]: (c) => emitCopyout(c.t, false, c.pc, c.next),
  [D.DIF_SUBR_COPYOUTSTR]: (c) => emitCopyout(c.t, true, c.pc, c.next),
  [D.DIF_SUBR_STRTOK]: (c) => emitStrtok(c.t, c.rd, c.pc, c.next),
};

/** The subroutines this bridge can emit (a unit test holds it to every one the compiler accepts). */
export const LINUX_SUBROUTINES: ReadonlySet<number> = new Set(Object.keys(SUBROUTINES).map(Number));

export function translateCall(t: ProbeTranslator, subr: number, rd: number, pc: number, next: Label): void {
  const f = SUBROUTINES[subr];
  if (!f) throw new TranslateError(`subroutine ${subrName(subr)}( ) is not supported by the Linux bridge yet`, t.ecbIndex, t.actionIndex);
  f({ t, rd, pc, next, nargs: t.tuple.length, n: t.env.strsize });
}
