// DIF subroutines (the CALL instruction) as eBPF. Arguments are on the DIF tuple stack
// (translator.tuple, values at mem.tuple + 8*i); the result goes to DIF register rd.
// Strings are kernel addresses; a string result is built in a scratch slot of strsize bytes.

import * as D from '../../dif/constants.js';
import { ALU, HELPER, JMP, R0, R1, R2, R3, R8, type Label } from './bpf-asm.js';
import { type ProbeTranslator, TranslateError } from './translate.js';

type Subroutine = (t: ProbeTranslator, rd: number, pc: number, next: Label) => void;

/** R3 = address of tuple argument i. */
function arg(t: ProbeTranslator, i: number, reg = R3): void {
  if (i >= t.tuple.length) throw new TranslateError(`subroutine argument #${i + 1} is missing`, t.ecbIndex, t.actionIndex);
  t.a.ldx(8, reg, R8, t.env.mem.tuple + 8 * i);
}

const SUBROUTINES: Partial<Record<number, Subroutine>> = {
  // strlen(s): copy into scratch with probe_read_kernel_str, whose result counts the NUL.
  [D.DIF_SUBR_STRLEN]: (t, rd) => {
    const a = t.a, n = t.env.strsize;
    const buf = t.scratch(n);
    arg(t, 0);
    a.mov(R1, R8), a.aluImm(ALU.ADD, R1, buf), a.movImm(R2, n);
    a.call(HELPER.probe_read_kernel_str);
    const ok = a.label('strlen.ok');
    a.jmpImm(JMP.JSGT, R0, 0, ok);
    a.movImm(R0, 1);
    a.place(ok);
    a.aluImm(ALU.SUB, R0, 1);
    t.putReg(R0, rd);
  },
};

export function translateCall(t: ProbeTranslator, subr: number, rd: number, pc: number, next: Label): void {
  const f = SUBROUTINES[subr];
  if (!f) throw new TranslateError(`subroutine ${D.subrName(subr)}( ) is not supported by the Linux bridge yet`, t.ecbIndex, t.actionIndex);
  f(t, rd, pc, next);
}
