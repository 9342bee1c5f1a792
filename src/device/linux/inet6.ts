// inet_ntoa6(addr) and inet_ntop(AF_INET6, addr) with DTrace's semantics (dtrace_dif_subr):
// lower-case hex groups without leading zeros, "::" for the zero run DTrace's byte-wise scan
// chooses (one zero group is enough; a later run must be longer to win), and v4-mapped or
// v4-compatible addresses ending in a dotted quad -- all of inet_ntoa6()'s text, the tail of
// inet_ntop()'s. Like DTrace, the text is built from its end backwards, into a slot of
// INET6_ADDRSTRLEN bytes. The scan and the groups are loops bounded by may_goto with their
// variables in mem, which the verifier checks once or twice rather than once per byte.

import * as D from '../../dif/constants.js';
import { ALU, HELPER, JMP, type Label, R0, R1, R2, R3, R4, R5, R8 } from './bpf-asm.js';
import type { ProbeTranslator } from './translate.js';

const INET6_ADDRSTRLEN = 46;
/** BPF_JMP | BPF_JCOND: may_goto, taken once the program's loop budget is spent. */

export function emitInet6(t: ProbeTranslator, rd: number, pc: number, next: Label, argi: number, ntoa6: boolean): void {
  const a = t.a, mem = t.env.mem, B = mem.cmpA;
  const out = t.stringSlot(INET6_ADDRSTRLEN);
  const vars = t.scratch(8 * 7);
  const [tryzero, firstzero, numzero, pos, skipFrom, idx, steps] = [0, 1, 2, 3, 4, 5, 6].map((i) => vars + 8 * i) as [number, number, number, number, number, number, number];
  const done = a.label('inet6.done'), none = a.label('inet6.none');

  a.mov(R1, R8), a.aluImm(ALU.ADD, R1, B), a.movImm(R2, 16);
  a.ldx(8, R3, R8, mem.tuple + 8 * argi);
  a.call(HELPER.probe_read_kernel);
  const read = a.label('inet6.read');
  a.jmpImm(JMP.JEQ, R0, 0, read);
  a.ldx(8, R1, R8, mem.tuple + 8 * argi);
  t.fault(D.DTRACEFLT_BADADDR, pc, R1, next);
  a.place(read);

  /** A loop bounded by may_goto and `limit` steps (counted in mem); body(again) loops. */
  const loop = (limit: number, body: (again: Label) => void) => {
    const head = a.label('inet6.loop'), stop = a.label('inet6.stop');
    a.st(8, R8, steps, 0);
    a.place(head);
    a.mayGoto(stop);
    a.ldx(8, R1, R8, steps);
    a.jmpImm(JMP.JGE, R1, limit, stop);
    a.aluImm(ALU.ADD, R1, 1), a.stx(8, R8, steps, R1);
    body(head);
    a.place(stop);
  };
  /** reg = B[i] for the index in idx (checked to be below 16). */
  const addrByte = (reg: number, idx: number, fail: Label) => {
    a.jmpImm(JMP.JGE, idx, 16, fail);
    a.mov(R5, R8), a.alu(ALU.ADD, R5, idx), a.ldx(1, reg, R5, B);
  };

  // The zero run: firstzero and numzero (in bytes), as DTrace's scan finds them.
  a.st(8, R8, tryzero, -1), a.st(8, R8, firstzero, -1), a.st(8, R8, numzero, 1), a.st(8, R8, idx, 0);
  loop(16, (again) => {
    const step = a.label('inet6.step'), scan = a.label('inet6.scan');
    a.ldx(8, R4, R8, idx);
    addrByte(R2, R4, none);
    a.mov(R1, R4), a.aluImm(ALU.ADD, R1, 1), a.stx(8, R8, idx, R1);
    a.ldx(8, R3, R8, tryzero);
    // A zero at an even byte starts a run.
    a.jmpImm(JMP.JNE, R2, 0, scan);
    a.jmpImm(JMP.JNE, R3, -1, scan);
    a.jmpImm(JMP.JSET, R4, 1, scan);
    a.stx(8, R8, tryzero, R4);
    a.ja(again);
    a.place(scan);
    a.jmpImm(JMP.JEQ, R3, -1, again);
    const end = a.label('inet6.runend');
    a.jmpImm(JMP.JNE, R2, 0, end);
    a.jmpImm(JMP.JNE, R4, 15, again);
    a.place(end);
    // The run ends here: it wins when longer than the best so far.
    a.mov(R1, R4), a.alu(ALU.SUB, R1, R3); // i - tryzero
    a.ldx(8, R0, R8, numzero);
    a.jmp(JMP.JSLE, R1, R0, step);
    a.stx(8, R8, firstzero, R3);
    a.mov(R1, R4), a.aluImm(ALU.AND, R1, -2), a.alu(ALU.SUB, R1, R3); // i - i % 2 - tryzero
    const notLast = a.label('inet6.notlast');
    a.jmpImm(JMP.JNE, R2, 0, notLast);
    a.aluImm(ALU.ADD, R1, 2); // a zero last byte: the run goes to the end
    a.place(notLast);
    a.stx(8, R8, numzero, R1);
    a.place(step);
    a.st(8, R8, tryzero, -1);
    a.ja(again);
  });

  /** out[pos--] = reg (pos stays inside the slot: the text is at most 45 characters). */
  const put = (reg: number) => {
    a.ldx(8, R1, R8, pos);
    a.jmpImm(JMP.JGE, R1, INET6_ADDRSTRLEN, none);
    a.mov(R5, R8), a.alu(ALU.ADD, R5, R1), a.stx(1, R5, out, reg);
    a.aluImm(ALU.SUB, R1, 1), a.stx(8, R8, pos, R1);
  };
  const putImm = (c: string) => {
    a.movImm(R3, c.charCodeAt(0));
    put(R3);
  };
  /** R2's digits in `base`, least significant first (one "0" for zero). */
  const digits = (base: 10 | 16, max: number) => {
    const end = a.label('inet6.digits');
    for (let k = 0; k < max; k++) {
      const dec = a.label('inet6.dec');
      a.mov(R3, R2), a.aluImm(ALU.MOD, R3, base);
      a.aluImm(ALU.ADD, R3, 0x30);
      if (base === 16) {
        a.jmpImm(JMP.JLE, R3, 0x39, dec);
        a.aluImm(ALU.ADD, R3, 0x61 - 0x3a); // 'a' after '9'
      }
      a.place(dec);
      put(R3);
      a.aluImm(ALU.DIV, R2, base);
      a.jmpImm(JMP.JEQ, R2, 0, end);
    }
    a.place(end);
  };

  a.st(8, R8, pos, INET6_ADDRSTRLEN - 1);
  a.movImm(R3, 0);
  put(R3);

  // v4-mapped (::ffff:a.b.c.d) or v4-compatible (::a.b.c.d, but not :: or ::1)?
  const v6 = a.label('inet6.v6'), quad = a.label('inet6.quad'), result = a.label('inet6.result');
  a.st(8, R8, idx, 14); // the last group to write
  for (let i = 0; i < 10; i += 2) {
    a.ldx(2, R2, R8, B + i);
    a.jmpImm(JMP.JNE, R2, 0, v6);
  }
  a.ldx(2, R2, R8, B + 10);
  a.jmpImm(JMP.JEQ, R2, 0xffff, quad);
  a.jmpImm(JMP.JNE, R2, 0, v6);
  a.ldx(4, R2, R8, B + 12);
  a.jmpImm(JMP.JEQ, R2, 0, v6);
  a.jmpImm(JMP.JEQ, R2, 0x01000000, v6); // ::1 (network order, read little-endian)
  a.place(quad);
  for (let i = 15; i >= 12; i--) {
    a.ldx(1, R2, R8, B + i);
    digits(10, 3);
    if (i > 12) putImm('.');
  }
  if (ntoa6) a.ja(result);
  else a.st(8, R8, idx, 10); // inet_ntop: the groups before the quad
  a.place(v6);

  // The groups from the last one back; the run's groups are one "::".
  a.st(8, R8, skipFrom, 100); // nothing skipped yet
  loop(8, (again) => {
    const write = a.label('inet6.write');
    a.ldx(8, R4, R8, idx);
    a.jmpImm(JMP.JSLT, R4, 0, result);
    a.mov(R1, R4), a.aluImm(ALU.SUB, R1, 2), a.stx(8, R8, idx, R1);
    a.ldx(8, R1, R8, skipFrom);
    a.jmp(JMP.JSLE, R1, R4, again); // inside the run
    a.ldx(8, R0, R8, firstzero), a.ldx(8, R1, R8, numzero);
    a.alu(ALU.ADD, R1, R0), a.aluImm(ALU.SUB, R1, 2);
    a.jmp(JMP.JNE, R1, R4, write); // i == firstzero + numzero - 2
    putImm(':'), putImm(':');
    a.ldx(8, R0, R8, firstzero), a.stx(8, R8, skipFrom, R0);
    a.ja(again);
    a.place(write);
    const noColon = a.label('inet6.nocolon');
    a.jmpImm(JMP.JSGE, R4, 14, noColon); // the last group
    a.ldx(8, R0, R8, firstzero), a.aluImm(ALU.SUB, R0, 2);
    a.jmp(JMP.JEQ, R0, R4, noColon); // the group before the run: "::" separates
    putImm(':');
    a.place(noColon);
    a.ldx(8, R4, R8, idx), a.aluImm(ALU.ADD, R4, 2); // put() used R1..R5
    addrByte(R2, R4, none);
    a.aluImm(ALU.LSH, R2, 8);
    a.aluImm(ALU.ADD, R4, 1);
    addrByte(R3, R4, none);
    a.alu(ALU.OR, R2, R3);
    digits(16, 4);
    a.ja(again);
  });

  a.place(result);
  a.ldx(8, R1, R8, pos);
  a.jmpImm(JMP.JGE, R1, INET6_ADDRSTRLEN, none);
  a.ldx(8, R0, R8, mem.self), a.aluImm(ALU.ADD, R0, out + 1), a.alu(ALU.ADD, R0, R1);
  t.putReg(R0, rd);
  a.ja(done);
  a.place(none);
  a.movImm(R0, 0);
  t.putReg(R0, rd);
  a.place(done);
}
