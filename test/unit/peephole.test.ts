import { describe, expect, test } from 'vitest';
import { ALU, BpfAsm, FP, HELPER, JMP, R0, R1, R2, R6, R8 } from '../../src/device/linux/bpf-asm.js';
import { disassemble } from '../../src/device/linux/bpf-disasm.js';
import { optimize } from '../../src/device/linux/peephole.js';
import { allocateRegisters, fusedComparisons } from '../../src/device/linux/regalloc.js';
import * as D from '../../src/dif/constants.js';
import type { Difo } from '../../src/dif/difo.js';

const listing = (a: BpfAsm) => disassemble(a.finish()).map((l) => l.replace(/^\d+: /, ''));
const none = { self: 0, memSlots: [], stackZeroing: [] };

describe('BPF clean-up passes', () => {
  test('removing instructions keeps every jump on its target', () => {
    const a = new BpfAsm();
    const skip = a.label('skip'), out = a.label('out');
    a.movImm(R0, 0);
    a.jmpImm(JMP.JEQ, R0, 0, skip);
    a.movImm(R1, 1); // deleted
    a.movImm(R1, 2); // deleted
    a.place(skip);
    a.movImm(R0, 5);
    a.ja(out);
    a.movImm(R0, 6);
    a.place(out);
    a.exit();
    a.remove([2, 3]);
    expect(listing(a)).toEqual(['r0 mov 0', 'if r0 jeq 0 goto 2', 'r0 mov 5', 'goto 5', 'r0 mov 6', 'exit']);
  });

  test('jumps past 32767 instructions: gotol, and a conditional one its inverse over a gotol', () => {
    const a = new BpfAsm();
    const far = a.label('far'), back = a.label('back');
    a.place(back);
    a.jmpImm(JMP.JEQ, R0, 0, far); // 0: too far for 16 bits
    a.ja(far); // 2: too far
    a.jmpImm(JMP.JSET, R0, 4, far); // 3: too far, and no inverse
    for (let i = 0; i < 40000; i++) a.movImm(R1, i);
    a.jmpImm(JMP.JSGT, R0, 0, back); // backwards, too far
    a.place(far);
    a.exit();
    const l = disassemble(a.finish());
    const end = l.length - 1; // the exit
    expect(l.slice(0, 6)).toEqual(['0: if r0 jne 0 goto 2', `1: gotol ${end}`, `2: gotol ${end}`,
      '3: if r0 jset 4 goto 5', '4: goto 6', `5: gotol ${end}`]);
    expect(l.slice(end - 2)).toEqual([`${end - 2}: if r0 jsle 0 goto ${end}`, `${end - 1}: gotol 0`, `${end}: exit`]);
    // Near jumps are unchanged.
    const b = new BpfAsm();
    const out = b.label('out');
    b.jmpImm(JMP.JEQ, R0, 0, out);
    b.movImm(R0, 1);
    b.place(out);
    b.exit();
    expect(disassemble(b.finish())).toEqual(['0: if r0 jeq 0 goto 2', '1: r0 mov 1', '2: exit']);
  });

  test('a jump is far by its reach once the verifier has expanded calls, divisions and may_goto', () => {
    // 20000 instructions, 1000 of them helper calls the verifier may inline into ten or more.
    const a = new BpfAsm();
    const out = a.label('out');
    a.jmpImm(JMP.JEQ, R0, 0, out);
    for (let i = 0; i < 1000; i++) {
      for (let j = 0; j < 19; j++) a.movImm(R1, j);
      a.call(HELPER.map_lookup_elem);
    }
    a.place(out);
    a.exit();
    const l = disassemble(a.finish());
    expect(l.slice(0, 2)).toEqual(['0: if r0 jne 0 goto 2', `1: gotol ${l.length - 1}`]);
    // The same length without them stays a 16-bit jump.
    const b = new BpfAsm();
    const end = b.label('end');
    b.jmpImm(JMP.JEQ, R0, 0, end);
    for (let i = 0; i < 20000; i++) b.movImm(R1, i);
    b.place(end);
    b.exit();
    expect(disassemble(b.finish())[0]).toBe('0: if r0 jeq 0 goto 20001');
  });

  test('values nobody reads are dropped; what reaches a helper, a store or exit stays', () => {
    const a = new BpfAsm();
    a.mov(R8, R1);
    a.ld64(R2, 0x1234n); // dead: overwritten before any read
    a.movImm(R2, 7);
    a.stx(8, R8, 16, R2); // a store into memory stays
    a.movImm(R1, 3); // read by the call
    a.call(HELPER.ktime_get_ns);
    a.mov(R6, R0); // dead: r6 never read
    a.exit();
    optimize(a, none);
    expect(listing(a)).toEqual(['r8 mov r1', 'r2 mov 7', '*(u64 *)[r8+16] = r2', 'r1 mov 3', 'call ktime_get_ns', 'exit']);
  });

  test('an entry register nobody reads goes, the calls that found it included; one read stays', () => {
    const build = (read: boolean) => {
      const a = new BpfAsm();
      a.mov(R8, R1);
      a.call(HELPER.get_current_task_btf);
      a.mov(R1, R0);
      a.call(HELPER.task_pt_regs);
      a.ldx(8, R0, R0, 112);
      a.stx(8, R8, 8, R0);
      if (read) a.ldx(8, R0, R8, 8);
      else a.movImm(R0, 0);
      a.exit();
      optimize(a, { self: 0, memSlots: [{ off: 8, size: 8 }], stackZeroing: [] });
      return listing(a);
    };
    expect(build(false)).toEqual(['r0 mov 0', 'exit']);
    expect(build(true)).toHaveLength(8);
  });

  test('a chain of dead values and a value only an unread stack store reads are all dropped', () => {
    const a = new BpfAsm();
    a.ldx(8, R1, R1, 0); // read only by the next, which is dead: dead too
    a.mov(R2, R1);
    a.aluImm(ALU.ADD, R2, 1); // r2 is never read after
    a.movImm(R6, 9); // read only by a store to a stack slot nothing loads
    a.stx(8, FP, -8, R6);
    a.movImm(R0, 0);
    a.exit();
    expect(optimize(a, none)).toBe(5);
    expect(listing(a)).toEqual(['r0 mov 0', 'exit']);
  });

  test('published scratch slots are kept only when something loads them', () => {
    const build = (read: boolean) => {
      const a = new BpfAsm();
      a.mov(R8, R1);
      a.stx(8, R8, 0, R8);
      a.ld64(R1, 99n);
      a.stx(8, R8, 8, R1);
      if (read) a.ldx(8, R0, R8, 8);
      else a.movImm(R0, 0);
      a.exit();
      optimize(a, { self: 0, memSlots: [{ off: 0, size: 8 }, { off: 8, size: 8 }], stackZeroing: [] });
      return listing(a);
    };
    expect(build(false)).toEqual(['r0 mov 0', 'exit']);
    expect(build(true)).toEqual(['r8 mov r1', 'r1 mov 99', '*(u64 *)[r8+8] = r1', 'r0 = *(u64 *)[r8+8]', 'exit']);
  });

  test('a stack slot keeps its zeroing only where it may be read before it is written', () => {
    const build = (writeFirst: boolean) => {
      const a = new BpfAsm();
      const zeroing = [a.length];
      a.st(8, FP, -8, 0);
      if (writeFirst) a.movImm(R1, 4), a.stx(8, FP, -8, R1);
      a.ldx(8, R0, FP, -8);
      a.exit();
      optimize(a, { self: 0, memSlots: [], stackZeroing: zeroing });
      return listing(a);
    };
    expect(build(true)).toEqual(['r0 mov 4', 'exit']);
    expect(build(false)).toEqual(['*(u64 *)[fp-8] = 0', 'r0 = *(u64 *)[fp-8]', 'exit']);
  });

  test('a branch that skips the write keeps the zeroing', () => {
    const a = new BpfAsm();
    const join = a.label('join');
    const zeroing = [a.length];
    a.st(8, FP, -8, 0);
    a.call(HELPER.get_prandom_u32);
    a.jmpImm(JMP.JEQ, R0, 0, join);
    a.stx(8, FP, -8, R0);
    a.place(join);
    a.ldx(8, R0, FP, -8);
    a.aluImm(ALU.ADD, R0, 1);
    a.exit();
    optimize(a, { self: 0, memSlots: [], stackZeroing: zeroing });
    expect(listing(a)[0]).toBe('*(u64 *)[fp-8] = 0');
  });
});

const ins = (op: number, r1: number, r2: number, rd: number) => ((op << 24) | (r1 << 16) | (r2 << 8) | rd) >>> 0;
const difo = (insns: number[]): Difo => ({ insns, inttab: [], strtab: Buffer.alloc(0), vartab: [], rtype: { kind: 0, ctfType: 0, flags: 0, size: 8 } } as unknown as Difo);

describe('DIF register allocation', () => {
  test('the most used DIF registers get r6 and r7; %r0 never does', () => {
    const d = difo([
      ins(D.DIF_OP_ADD, 1, 2, 3), ins(D.DIF_OP_ADD, 3, 3, 3), ins(D.DIF_OP_ADD, 3, 1, 1),
      ins(D.DIF_OP_MOV, 0, 0, 4), ins(D.DIF_OP_RET, 0, 0, 3),
    ]);
    expect([...allocateRegisters(d)]).toEqual([[3, 6], [1, 7]]);
  });

  test('comparisons fuse with the branch after them only when no condition code outlives it', () => {
    const branch = (op: number, target: number) => ((op << 24) | target) >>> 0;
    const simple = difo([ins(D.DIF_OP_CMP, 1, 2, 0), branch(D.DIF_OP_BL, 3), ins(D.DIF_OP_MOV, 1, 0, 1), ins(D.DIF_OP_RET, 0, 0, 1)]);
    expect([...fusedComparisons(simple)]).toEqual([0]);
    // A second branch on the same condition codes: nothing is fused.
    const shared = difo([ins(D.DIF_OP_CMP, 1, 2, 0), branch(D.DIF_OP_BL, 3), branch(D.DIF_OP_BG, 3), ins(D.DIF_OP_RET, 0, 0, 1)]);
    expect([...fusedComparisons(shared)]).toEqual([]);
  });
});
