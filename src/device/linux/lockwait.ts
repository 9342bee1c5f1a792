// The lockstat provider's wait times (src/providers/lockstat.ts). The kernel's lock tracepoints
// say when a thread starts to wait for a lock (lock:contention_begin, with what kind of wait:
// spinning, sleeping, reader or writer) and when it has it (contention_end), but not how long it
// waited. A small program on contention_begin keeps, per thread, the time and the flags of its
// last wait in an LRU hash; a probe on contention_end reads them back (0 when tracing began
// during the wait).

import { ALU, BpfAsm, FP, HELPER, JMP, R0, R1, R2, R3, R4, R6, R8 } from './bpf-asm.js';

/** Per-thread entry: the wait's start (ktime ns), its LCB_F_* flags. */
export const LOCKWAIT_VALUE_SIZE = 16;
/** Threads waiting at once that the map can follow. */
export const LOCKWAIT_ENTRIES = 16384;

/** The raw contention_begin program: lockwait[tid] = { now, flags }. */
export function lockWaitBeginProgram(mapFd: number, flagsArg: number): Buffer {
  const a = new BpfAsm();
  a.mov(R6, R1);
  a.call(HELPER.get_current_pid_tgid);
  a.stx(4, FP, -8, R0);
  a.call(HELPER.ktime_get_ns);
  a.stx(8, FP, -24, R0);
  a.ldx(8, R1, R6, 8 * flagsArg), a.stx(8, FP, -16, R1);
  a.ldMap(R1, mapFd), a.mov(R2, FP), a.aluImm(ALU.ADD, R2, -8), a.mov(R3, FP), a.aluImm(ALU.ADD, R3, -24), a.movImm(R4, 0);
  a.call(HELPER.map_update_elem);
  a.movImm(R0, 0);
  a.exit();
  return a.finish();
}

/**
 * Store at mem offset `slot` (R8) the current thread's wait: nanoseconds since it began, its
 * flags, or 1 for a reader's wait (else 0). Uses the stack slot at fp-8, which the prologue
 * zeroes again after the arguments are loaded.
 */
export function emitLockWait(a: BpfAsm, mapFd: number, what: 'time' | 'flags' | 'reader', slot: number): void {
  const done = a.label('lockwait.done');
  a.st(8, R8, slot, 0);
  a.call(HELPER.get_current_pid_tgid);
  a.st(8, FP, -8, 0);
  a.stx(4, FP, -8, R0);
  a.ldMap(R1, mapFd), a.mov(R2, FP), a.aluImm(ALU.ADD, R2, -8);
  a.call(HELPER.map_lookup_elem);
  a.jmpImm(JMP.JEQ, R0, 0, done);
  if (what === 'time') {
    a.ldx(8, R1, R0, 0), a.stx(8, R8, slot, R1);
    a.call(HELPER.ktime_get_ns);
    a.ldx(8, R1, R8, slot), a.alu(ALU.SUB, R0, R1);
    a.stx(8, R8, slot, R0);
  } else {
    a.ldx(8, R1, R0, 8);
    if (what === 'reader') a.aluImm(ALU.RSH, R1, 1), a.aluImm(ALU.AND, R1, 1);
    a.stx(8, R8, slot, R1);
  }
  a.place(done);
}
