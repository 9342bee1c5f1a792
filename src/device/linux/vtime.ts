// vtimestamp: the current thread's on-CPU nanoseconds.
//
// The scheduler keeps each task's on-CPU time in se.sum_exec_runtime, brought up to date when the
// task leaves a CPU (and at ticks). A small program on the raw sched_switch tracepoint writes, for
// its CPU, the arriving thread's id, its sum_exec_runtime then (exact: it was not running) and the
// time it arrived; vtimestamp is that sum plus the time since, for the thread the CPU's entry
// names. A thread that was already running when tracing began has no entry until its next switch,
// and reads sum_exec_runtime alone (as fresh as the scheduler's last tick).

import { loadKernelBtf } from '../../btf/btf.js';
import { rawPrototype } from '../../providers/tracepoint-probe.js';
import { ALU, BpfAsm, FP, HELPER, JMP, R0, R1, R2, R3, R6, R7, R8 } from './bpf-asm.js';

/** Per-CPU entry of the vtime map: tid, arrival time, sum_exec_runtime at arrival. */
export const VTIME_VALUE_SIZE = 24;

export interface VtimeEnv {
  /** Array map, one VTIME_VALUE_SIZE entry per CPU. */
  fd: number;
  /** Offset of se.sum_exec_runtime in task_struct. */
  sumExecRuntime: number;
}

/** Offsets the vtime code reads from BTF. */
export function vtimeOffsets(): { sumExecRuntime: number; pid: number; nextArg: number } {
  const btf = loadKernelBtf();
  const tasks = rawPrototype('sched_switch').flatMap((t, i) => (t === 'struct task_struct *' ? [i] : []));
  if (tasks.length < 2) throw new Error('sched_switch has no prev and next task arguments');
  return {
    sumExecRuntime: btf.memberPath('task_struct', 'se.sum_exec_runtime').byteOffset,
    pid: btf.memberPath('task_struct', 'pid').byteOffset,
    nextArg: tasks[1],
  };
}

/** The raw sched_switch program that records each CPU's arriving thread. */
export function vtimeSwitchProgram(mapFd: number): Buffer {
  const o = vtimeOffsets();
  const a = new BpfAsm();
  const out = a.label('vtime.out');
  a.ldx(8, R6, R1, 8 * o.nextArg); // next
  a.call(HELPER.get_smp_processor_id);
  a.stx(4, FP, -8, R0);
  a.ldMap(R1, mapFd), a.mov(R2, FP), a.aluImm(ALU.ADD, R2, -8);
  a.call(HELPER.map_lookup_elem);
  a.jmpImm(JMP.JEQ, R0, 0, out);
  a.mov(R7, R0);
  // tid and sum_exec_runtime of next (probe_read_kernel writes 0 where it cannot read)
  a.mov(R1, R7), a.movImm(R2, 4), a.mov(R3, R6), a.aluImm(ALU.ADD, R3, o.pid);
  a.st(8, R7, 0, 0);
  a.call(HELPER.probe_read_kernel);
  a.mov(R1, R7), a.aluImm(ALU.ADD, R1, 16), a.movImm(R2, 8), a.mov(R3, R6), a.aluImm(ALU.ADD, R3, o.sumExecRuntime);
  a.call(HELPER.probe_read_kernel);
  a.call(HELPER.ktime_get_ns);
  a.stx(8, R7, 8, R0);
  a.place(out);
  a.movImm(R0, 0);
  a.exit();
  return a.finish();
}

/**
 * R0 = vtimestamp of the current thread. `off`: 32 bytes of the clause's working space in mem
 * (R8); `readSum` leaves the current task's sum_exec_runtime in R0.
 */
export function emitVtimestamp(a: BpfAsm, env: VtimeEnv, off: number, readSum: () => void): void {
  const fallback = a.label('vtime.fallback'), done = a.label('vtime.done');
  readSum();
  a.stx(8, R8, off, R0);
  a.call(HELPER.get_smp_processor_id);
  a.stx(4, R8, off + 8, R0);
  a.ldMap(R1, env.fd), a.mov(R2, R8), a.aluImm(ALU.ADD, R2, off + 8);
  a.call(HELPER.map_lookup_elem);
  a.jmpImm(JMP.JEQ, R0, 0, fallback);
  a.ldx(8, R1, R0, 0), a.stx(8, R8, off + 8, R1);
  a.ldx(8, R1, R0, 8), a.stx(8, R8, off + 16, R1);
  a.jmpImm(JMP.JEQ, R1, 0, fallback); // no switch seen on this CPU yet
  a.ldx(8, R1, R0, 16), a.stx(8, R8, off + 24, R1);
  a.call(HELPER.get_current_pid_tgid);
  a.mov32(R0, R0);
  a.ldx(8, R1, R8, off + 8);
  a.jmp(JMP.JNE, R0, R1, fallback);
  a.call(HELPER.ktime_get_ns);
  a.ldx(8, R1, R8, off + 16), a.alu(ALU.SUB, R0, R1);
  a.ldx(8, R1, R8, off + 24), a.alu(ALU.ADD, R0, R1);
  a.ja(done);
  a.place(fallback);
  a.ldx(8, R0, R8, off);
  a.place(done);
}
