// Destructive actions in probe context (the compiler refuses them without -w):
//   raise(sig)   bpf_send_signal_thread: the signal goes to the thread that fired the probe, as
//                DTrace posts it to curthread;
//   stop()       bpf_send_signal(SIGSTOP): the whole process stops;
//   chill(ns)    a busy wait on bpf_ktime_get_ns, bounded by may_goto (BPF programs cannot sleep);
//   copyout(buf, addr, n) / copyoutstr(str, addr, maxlen)   bpf_probe_write_user, from a copy
//                of the source in the clause's scratch memory.
// system() needs nothing here: it records like printf() and the consumer runs the command.

import * as D from '../../dif/constants.js';
import type { RecordDescription } from '../device.js';
import { RECORD_HEADER_SIZE } from '../../abi/records.js';
import { ALU, HELPER, JMP, type Label, R0, R1, R2, R3, R6, R7, R8 } from './bpf-asm.js';
import type { ProbeTranslator } from './translate.js';

const HELPER_PROBE_WRITE_USER = 36;
const SIGSTOP = 19;
const NSIG = 64;
/** BPF_JMP | BPF_JCOND: may_goto, taken once the program's loop budget is spent. */
/** DTrace's dtrace_chill_max: at most half a second of chill. */
const CHILL_MAX_NS = 500_000_000;

/** raise/stop/chill, after the action's value (if any) has been stored in its record. Their
 * own faults (a bad signal, too long a chill) are at no DIF offset, as in DTrace. */
export function emitDestructiveAction(t: ProbeTranslator, kind: number, rec: RecordDescription | null, next: Label): void {
  const a = t.a;
  const value = () => {
    if (!rec || rec.size === 0) return a.movImm(R6, 0);
    a.ldx(4, R6, R8, t.env.mem.buf + RECORD_HEADER_SIZE + rec.offset);
    a.movsx(R6, R6, 32);
  };
  switch (kind) {
    case D.DTRACEACT_STOP:
      a.movImm(R1, SIGSTOP);
      a.call(HELPER.send_signal);
      return;
    case D.DTRACEACT_RAISE: {
      value();
      const ok = a.label('raise.ok'), done = a.label('raise.done');
      a.jmpImm(JMP.JEQ, R6, 0, done); // signal 0: nothing to send
      a.jmpImm(JMP.JLE, R6, NSIG, ok);
      t.fault(D.DTRACEFLT_ILLOP, -1, undefined, next);
      a.place(ok);
      a.mov(R1, R6);
      a.call(HELPER.send_signal_thread);
      a.place(done);
      return;
    }
    case D.DTRACEACT_CHILL: {
      value();
      const ok = a.label('chill.ok'), loop = a.label('chill.loop'), done = a.label('chill.done');
      a.jmpImm(JMP.JLE, R6, CHILL_MAX_NS, ok);
      t.fault(D.DTRACEFLT_ILLOP, -1, undefined, next);
      a.place(ok);
      a.call(HELPER.ktime_get_ns);
      a.alu(ALU.ADD, R6, R0); // the deadline
      a.place(loop);
      a.mayGoto(done);
      a.call(HELPER.ktime_get_ns);
      a.jmp(JMP.JLT, R0, R6, loop);
      a.place(done);
      return;
    }
    default:
      return; // system(): recorded; the consumer runs it
  }
}

/**
 * copyout(buf, addr, nbytes) and copyoutstr(str, addr, maxlen): the source is copied into a
 * scratch slot of strsize bytes (bpf_probe_write_user reads only BPF memory), then written to
 * user memory. A longer copyout faults with "invalid size".
 */
export function emitCopyout(t: ProbeTranslator, str: boolean, pc: number, next: Label): void {
  const a = t.a, mem = t.env.mem, n = t.env.strsize;
  const slot = t.scratch(n);
  const arg = (i: number, reg: number) => a.ldx(8, reg, R8, mem.tuple + 8 * i);
  const done = a.label('copyout.done');
  if (str) {
    // R7 = bytes to write: the string with its NUL, at most maxlen.
    arg(0, R3);
    a.mov(R1, R8), a.aluImm(ALU.ADD, R1, slot), a.movImm(R2, n);
    a.call(HELPER.probe_read_kernel_str);
    const read = a.label('copyoutstr.read');
    a.jmpImm(JMP.JSGT, R0, 0, read);
    arg(0, R1);
    t.fault(D.DTRACEFLT_BADADDR, pc, R1, next);
    a.place(read);
    a.mov(R7, R0);
    arg(2, R1);
    const shorter = a.label('copyoutstr.len');
    a.jmp(JMP.JLE, R7, R1, shorter);
    a.mov(R7, R1);
    a.place(shorter);
    a.jmpImm(JMP.JEQ, R7, 0, done);
    a.jmpImm(JMP.JGT, R7, n, done); // cannot happen; tells the verifier the bound
  } else {
    arg(2, R7);
    a.jmpImm(JMP.JEQ, R7, 0, done);
    const fits = a.label('copyout.fits');
    a.jmpImm(JMP.JLE, R7, n, fits);
    t.fault(D.DTRACEFLT_BADSIZE, pc, undefined, next);
    a.place(fits);
    arg(0, R3);
    a.mov(R1, R8), a.aluImm(ALU.ADD, R1, slot), a.mov(R2, R7);
    a.call(HELPER.probe_read_kernel);
    const read = a.label('copyout.read');
    a.jmpImm(JMP.JEQ, R0, 0, read);
    arg(0, R1);
    t.fault(D.DTRACEFLT_BADADDR, pc, R1, next);
    a.place(read);
  }
  arg(1, R1);
  a.mov(R2, R8), a.aluImm(ALU.ADD, R2, slot), a.mov(R3, R7);
  a.call(HELPER_PROBE_WRITE_USER);
  a.jmpImm(JMP.JEQ, R0, 0, done);
  arg(1, R1);
  t.fault(D.DTRACEFLT_BADADDR, pc, R1, next);
  a.place(done);
}
