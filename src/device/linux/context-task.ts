// The thread a probe describes: its "context task". Every built-in derived from the thread --
// pid, tid, execname, curthread (and so curpsinfo/curlwpsinfo), ppid, uid, gid, progenyof(), the
// pid of usym()/umod()/uaddr() records, and the thread key of self-> variables -- is emitted here.
//
// Normally that thread is the current one, and the fast helpers are used (get_current_pid_tgid,
// get_current_comm, ...): the code is what it would be without this module. A probe that fires
// on behalf of another thread (sched:::on-cpu on a kernel without sched_exit_tp: the thread
// arriving on the CPU, at sched_switch, which runs in the leaving one) has env.contextTask: its
// prologue stores that thread's task_struct pointer at mem.task, and the same values are read
// from the task instead.

import { ALU, HELPER, R0, R1, R2, R3, R8, type Size } from './bpf-asm.js';
import type { TaskFields } from './kernel-types.js';
import type { ProbeTranslator } from './translate.js';

export interface ContextTask {
  /** Index of the raw tracepoint argument holding the task_struct pointer. */
  arg: number;
  fields: TaskFields;
}

/** R0 = the context task's task_struct address. */
export function emitTask(t: ProbeTranslator): void {
  if (!t.env.contextTask) t.a.call(HELPER.get_current_task);
  else t.a.ldx(8, R0, R8, t.env.mem.task!);
}

/** R0 = `size` bytes at offset `off` of the context task (0 when unreadable). */
function taskField(t: ProbeTranslator, off: number, size: Size): void {
  emitTask(t);
  t.a.aluImm(ALU.ADD, R0, off);
  t.readKernel(R0, size);
}

/** R0 = the context thread's process id (tgid). */
export function emitPid(t: ProbeTranslator): void {
  const ct = t.env.contextTask;
  if (!ct) t.a.call(HELPER.get_current_pid_tgid), t.a.aluImm(ALU.RSH, R0, 32);
  else taskField(t, ct.fields.tgid, 4);
}

/** R0 = the context thread's thread id (its pid in the kernel). */
export function emitTid(t: ProbeTranslator): void {
  const ct = t.env.contextTask;
  if (!ct) t.a.call(HELPER.get_current_pid_tgid), t.a.mov32(R0, R0);
  else taskField(t, ct.fields.pid, 4);
}

/** R0 = the context thread's uid or gid (its subjective cred, as bpf_get_current_uid_gid). */
export function emitUidOrGid(t: ProbeTranslator, which: 'uid' | 'gid'): void {
  const a = t.a, ct = t.env.contextTask;
  if (!ct) {
    a.call(HELPER.get_current_uid_gid);
    if (which === 'uid') a.mov32(R0, R0);
    else a.aluImm(ALU.RSH, R0, 32);
    return;
  }
  taskField(t, ct.fields.cred, 8);
  a.aluImm(ALU.ADD, R0, which === 'uid' ? ct.fields.credUid : ct.fields.credGid);
  t.readKernel(R0, 4);
}

/** The context task's command name, 16 bytes zero-padded, to mem offset `off` (`size` <= 16). */
export function emitComm(t: ProbeTranslator, off: number, size: number): void {
  const a = t.a, ct = t.env.contextTask;
  a.mov(R1, R8), a.aluImm(ALU.ADD, R1, off), a.movImm(R2, size);
  if (!ct) return a.call(HELPER.get_current_comm);
  // task->comm is kept zero-padded (strscpy_pad), and a failed read zeroes the destination.
  a.ldx(8, R3, R8, t.env.mem.task!), a.aluImm(ALU.ADD, R3, ct.fields.comm);
  a.call(HELPER.probe_read_kernel);
}
