// regs[] and uregs[] on Linux x86-64 (LDGA of DIF_VAR_REGS / DIF_VAR_UREGS), with DTrace for
// Linux's indices: 0-20 are the words of struct pt_regs (r15, r14, ..., ip, cs, flags, sp, ss),
// 21-25 the thread's ds, es, fsbase, gsbase and trap_nr from its task_struct, as its
// dtrace_getreg reads them.
//   uregs[]: the user registers the thread entered the kernel with -- the pt_regs at the top of
//            its kernel stack (bpf_task_pt_regs of bpf_get_current_task_btf).
//   regs[]:  the interrupted registers of a profile probe (the perf event's pt_regs); other
//            probes have no kernel registers to read (tracepoints record none, and this
//            kernel has no kprobes), so regs[] there is refused when the program is built.
// Both are the current thread's: at sched:::on-cpu the arriving one's, or, on a kernel without
// sched_exit_tp, where on-cpu fires at sched_switch, the leaving one's (context-task.ts).

import * as D from '../../dif/constants.js';
import { loadKernelBtf } from '../../btf/btf.js';
import { ALU, HELPER, JMP, R0, R1, R2, R3, R8, R9, type Size } from './bpf-asm.js';
import { type ProbeTranslator, TranslateError } from './translate.js';

/** Words of struct pt_regs on x86-64. */
export const PT_REGS_WORDS = 21;

let threadFields: { offset: number; size: Size }[] | null = null;

/** Where task_struct keeps ds, es, fsbase, gsbase and trap_nr (indices 21-25). */
function threadRegisters(): { offset: number; size: Size }[] {
  if (!threadFields) {
    const btf = loadKernelBtf();
    threadFields = ['ds', 'es', 'fsbase', 'gsbase', 'trap_nr'].map((m) => {
      const { byteOffset, type } = btf.memberPath('task_struct', `thread.${m}`);
      return { offset: byteOffset, size: btf.sizeOf(type) as Size };
    });
  }
  return threadFields;
}

/**
 * r0 = register `index` (a DIF register) of `array` (DIF_VAR_REGS or DIF_VAR_UREGS). Uses the
 * per-CPU stack scratch (mem.stack, at least PT_REGS_WORDS u64s) to copy pt_regs into.
 */
export function emitRegister(t: ProbeTranslator, array: number, index: number, buf: number): void {
  const a = t.a;
  if (array !== D.DIF_VAR_REGS && array !== D.DIF_VAR_UREGS)
    throw new TranslateError(`built-in array ${array} is not supported by the Linux bridge`, t.ecbIndex, t.actionIndex);
  if (array === D.DIF_VAR_REGS && !t.env.ctxRegs)
    throw new TranslateError('regs[] is not available at this probe: only profile probes have interrupted kernel registers on this system', t.ecbIndex, t.actionIndex);
  const high = a.label('reg.high'), done = a.label('reg.done');
  t.getReg(R1, index);
  a.jmpImm(JMP.JGE, R1, PT_REGS_WORDS, high);
  if (array === D.DIF_VAR_REGS) {
    // bpf_perf_event_data begins with pt_regs, which the verifier lets a program read only at
    // constant offsets: copy it word by word.
    for (let w = 0; w < PT_REGS_WORDS; w++) a.ldx(8, R0, R9, 8 * w), a.stx(8, R8, buf + 8 * w, R0);
  } else {
    a.call(HELPER.get_current_task_btf);
    a.mov(R1, R0);
    a.call(HELPER.task_pt_regs);
    a.mov(R3, R0);
    a.mov(R1, R8), a.aluImm(ALU.ADD, R1, buf), a.movImm(R2, 8 * PT_REGS_WORDS);
    a.call(HELPER.probe_read_kernel); // zeroes the copy when it fails
  }
  t.getReg(R1, index);
  a.jmpImm(JMP.JGE, R1, PT_REGS_WORDS, high); // again, for the verifier
  a.aluImm(ALU.LSH, R1, 3);
  a.mov(R2, R8), a.alu(ALU.ADD, R2, R1);
  a.ldx(8, R0, R2, buf);
  a.ja(done);
  a.place(high);
  threadRegisters().forEach(({ offset, size }, k) => {
    const next = a.label('reg.next');
    t.getReg(R1, index);
    a.jmpImm(JMP.JNE, R1, PT_REGS_WORDS + k, next);
    a.call(HELPER.get_current_task);
    a.aluImm(ALU.ADD, R0, offset);
    t.readKernel(R0, size);
    a.ja(done);
    a.place(next);
  });
  a.movImm(R0, 0); // past the last register (the compiler refuses constant ones)
  a.place(done);
}
