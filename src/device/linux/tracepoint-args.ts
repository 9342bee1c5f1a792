// The tracepoint providers' part of a program's prologue beyond plain record fields: argument
// values that are addresses inside the record, the exit reason of proc:::exit, and a provider's
// condition for firing at all. The context (the record) is in r9, this CPU's scratch memory in r8.

import type { ArgSource, Guard, Probe } from '../../providers/provider.js';
import { ALU, BpfAsm, FP, HELPER, JMP, type Label, R0, R1, R2, R3, R8, R9 } from './bpf-asm.js';
import { emitLockWait } from './lockwait.js';
import { emitTcpSocket, sockOffsets } from './tcpsocks.js';
import type { MemLayout } from './translate.js';

/** The prologue's memory, with strsize bytes where a user-string argument is copied. */
export type ArgMem = MemLayout & { argString?: { offset: number; size: number }; lockWaitFd?: number; tcpSocksFd?: number };

/** The guard's conditions on the context (before the arguments load) or on argN (after). */
export function guardsOf(probe: Probe, onArgs: boolean): Guard[] {
  const g = probe.guard;
  return (g === undefined ? [] : Array.isArray(g) ? g : [g]).filter((c) => (c.arg !== undefined) === onArgs);
}

/** Return from the program unless every condition holds (see Guard). */
export function emitGuard(a: BpfAsm, guards: Guard[], argsAt: number): void {
  for (const g of guards) {
    const fire = a.label('guard.fire');
    for (const c of g.any ?? [g]) {
      if (c.arg !== undefined && c.deref !== undefined) {
        // A byte of the object argN points to (a packet header's flags); unreadable: not met.
        const unread = a.label('guard.unread');
        a.ldx(8, R3, R8, argsAt + 8 * c.arg);
        a.jmpImm(JMP.JEQ, R3, 0, unread);
        a.aluImm(ALU.ADD, R3, c.deref);
        readKernel(a, R3, c.size ?? 8, unread);
        testGuard(a, c, fire);
        a.place(unread);
        continue;
      }
      if (c.arg !== undefined) a.ldx(8, R0, R8, argsAt + 8 * c.arg);
      else if (c.in === 'task') loadCurrentTask(a, c.offset ?? 0, c.size ?? 8);
      else if (c.in === 'entryRegisters') loadEntryRegister(a, c.offset ?? 0, c.size ?? 8);
      else if (c.deref !== undefined) {
        // Read before the arguments load, so the stack slot is free (the prologue zeroes it later).
        const unread = a.label('guard.unread');
        a.ldx(8, R3, R9, c.offset ?? 0), a.aluImm(ALU.ADD, R3, c.deref);
        a.st(8, FP, -8, 0);
        a.mov(R1, FP), a.aluImm(ALU.ADD, R1, -8), a.movImm(R2, c.size ?? 8);
        a.call(HELPER.probe_read_kernel);
        a.jmpImm(JMP.JNE, R0, 0, unread);
        a.ldx(c.size ?? 8, R0, FP, -8);
        testGuard(a, c, fire);
        a.place(unread);
        continue;
      } else a.ldx(c.size ?? 8, R0, R9, c.offset ?? 0);
      testGuard(a, c, fire);
    }
    a.movImm(R0, 0);
    a.exit();
    a.place(fire);
  }
}

/** r0 = the `size` bytes at `offset` in the current task_struct (a BTF pointer: a plain load). */
export function loadCurrentTask(a: BpfAsm, offset: number, size: 1 | 2 | 4 | 8): void {
  a.call(HELPER.get_current_task_btf);
  a.ldx(size, R0, R0, offset);
}

/**
 * r0 = the `size` bytes at `offset` in the struct pt_regs the current thread entered the kernel
 * with (bpf_task_pt_regs: a BTF pointer, read by a plain load rather than a helper's copy). The
 * peephole drops both calls where nothing reads the value.
 */
export function loadEntryRegister(a: BpfAsm, offset: number, size: 1 | 2 | 4 | 8 = 8): void {
  a.call(HELPER.get_current_task_btf);
  a.mov(R1, R0);
  a.call(HELPER.task_pt_regs);
  a.ldx(size, R0, R0, offset);
}

/**
 * r0 = the `size` bytes at the kernel address in r3, through the stack slot at fp-8 (which the
 * prologue zeroes again after the arguments are loaded); to `unread` if they cannot be read.
 */
function readKernel(a: BpfAsm, addr: number, size: 1 | 2 | 4 | 8, unread: Label): void {
  if (addr !== R3) a.mov(R3, addr);
  a.st(8, FP, -8, 0);
  a.mov(R1, FP), a.aluImm(ALU.ADD, R1, -8), a.movImm(R2, size);
  a.call(HELPER.probe_read_kernel);
  a.jmpImm(JMP.JNE, R0, 0, unread);
  a.ldx(size, R0, FP, -8);
}

/** Jump to `fire` if the value in r0 meets the condition. */
function testGuard(a: BpfAsm, g: Guard, fire: Label): void {
  if (g.mask !== undefined) a.aluImm(ALU.AND, R0, g.mask);
  const op = g.op ?? 'ne';
  a.jmpImm(op === 'ne' ? JMP.JNE : op === 'eq' ? JMP.JEQ : JMP.JGT, R0, g.value ?? 0, fire);
}

/**
 * Store the value of `src` at mem offset `slot`, for the argument kinds handled here; false for
 * the others.
 */
export function emitTracepointArg(a: BpfAsm, src: ArgSource, slot: number, mem: ArgMem): boolean {
  switch (src.kind) {
    case 'userString': {
      // Strings are read from kernel addresses, so the user string is copied into this CPU's
      // memory first (zeroed by the helper if unreadable); the value is the copy's address.
      const at = mem.argString;
      if (!at) throw new Error('no memory set aside for a user string argument');
      a.ldx(8, R3, R9, src.offset);
      a.mov(R1, R8), a.aluImm(ALU.ADD, R1, at.offset), a.movImm(R2, at.size);
      a.call(HELPER.probe_read_user_str);
      a.ldx(8, R0, R8, mem.self), a.aluImm(ALU.ADD, R0, at.offset);
      a.stx(8, R8, slot, R0);
      return true;
    }
    case 'negated':
      a.ldx(8, R0, R9, src.offset), a.aluImm(ALU.NEG, R0, 0);
      a.stx(8, R8, slot, R0);
      return true;
    case 'fieldAddress':
    case 'dataLoc':
      // The record's address as a scalar (DIF values are plain numbers): stored to map memory and
      // loaded back, as the prologue does for mem.self.
      a.stx(8, R8, slot, R9);
      a.ldx(8, R0, R8, slot);
      if (src.kind === 'fieldAddress') a.aluImm(ALU.ADD, R0, src.offset);
      else {
        a.ldx(4, R1, R9, src.offset);
        a.aluImm(ALU.AND, R1, 0xffff);
        if (src.relative) a.aluImm(ALU.ADD, R1, src.offset + 4);
        a.alu(ALU.ADD, R0, R1);
      }
      a.stx(8, R8, slot, R0);
      return true;
    case 'raw':
      a.ldx(8, R0, R9, 8 * src.index);
      a.stx(8, R8, slot, R0);
      return true;
    case 'entryRegister':
      loadEntryRegister(a, src.offset);
      a.stx(8, R8, slot, R0);
      return true;
    case 'rawDeref':
      // The stack slot used is zeroed again by the prologue after the arguments are loaded.
      a.ldx(8, R3, R9, 8 * src.index), a.aluImm(ALU.ADD, R3, src.offset);
      a.st(8, FP, -8, 0);
      a.mov(R1, FP), a.aluImm(ALU.ADD, R1, -8), a.movImm(R2, 8);
      a.call(HELPER.probe_read_kernel);
      a.ldx(8, R0, FP, -8);
      a.stx(8, R8, slot, R0);
      return true;
    case 'lockWait':
      if (mem.lockWaitFd === undefined) throw new Error('no lock wait map for a lockstat argument');
      emitLockWait(a, mem.lockWaitFd, src.what, slot);
      return true;
    case 'tcpSocket':
      // The key is built in the stack() scratch area, which nothing uses before the clauses run.
      if (mem.tcpSocksFd === undefined || mem.stack === undefined) throw new Error('no socket map for a tcp receive argument');
      emitTcpSocket(a, mem.tcpSocksFd, src.index, sockOffsets(), slot, mem.stack);
      return true;
    case 'argCopy':
      a.ldx(8, R0, R8, mem.args + 8 * src.arg);
      a.stx(8, R8, slot, R0);
      return true;
    case 'argDeref': {
      const done = a.label('argderef.done');
      a.st(8, R8, slot, 0);
      a.ldx(8, R3, R8, mem.args + 8 * src.arg);
      a.jmpImm(JMP.JEQ, R3, 0, done);
      a.aluImm(ALU.ADD, R3, src.offset);
      readKernel(a, R3, src.size, done);
      a.stx(8, R8, slot, R0);
      a.place(done);
      return true;
    }
    case 'skbHeader': {
      const done = a.label('skbheader.done');
      a.st(8, R8, slot, 0);
      a.ldx(8, R3, R9, 8 * src.index), a.aluImm(ALU.ADD, R3, src.head);
      readKernel(a, R3, 8, done);
      a.jmpImm(JMP.JEQ, R0, 0, done);
      a.stx(8, R8, slot, R0);
      a.ldx(8, R3, R9, 8 * src.index), a.aluImm(ALU.ADD, R3, src.header);
      const unread = a.label('skbheader.unread');
      readKernel(a, R3, 2, unread);
      a.ldx(8, R1, R8, slot), a.alu(ALU.ADD, R1, R0);
      a.stx(8, R8, slot, R1);
      a.ja(done);
      a.place(unread);
      a.st(8, R8, slot, 0);
      a.place(done);
      return true;
    }
    case 'ipPayload':
    case 'ipOfVersion': {
      // The version nibble of the header's first byte says where the protocol byte is (IPv4: 9,
      // after a header of IHL words; IPv6: 6, after 40 bytes).
      const done = a.label('ip.done'), none = a.label('ip.none'), v6 = a.label('ip.v6'), proto = a.label('ip.proto');
      a.st(8, R8, slot, 0);
      a.ldx(8, R3, R8, mem.args + 8 * src.ip);
      a.jmpImm(JMP.JEQ, R3, 0, done);
      readKernel(a, R3, 1, done);
      a.mov(R1, R0), a.aluImm(ALU.RSH, R1, 4);
      if (src.kind === 'ipOfVersion') {
        a.jmpImm(JMP.JNE, R1, src.version, done);
        a.ldx(8, R0, R8, mem.args + 8 * src.ip);
        a.stx(8, R8, slot, R0);
        a.place(done);
        return true;
      }
      a.jmpImm(JMP.JEQ, R1, 6, v6);
      a.jmpImm(JMP.JNE, R1, 4, done);
      a.aluImm(ALU.AND, R0, 0xf), a.aluImm(ALU.LSH, R0, 2);
      a.stx(8, R8, slot, R0);
      a.ldx(8, R3, R8, mem.args + 8 * src.ip), a.aluImm(ALU.ADD, R3, 9);
      a.ja(proto);
      a.place(v6);
      a.st(8, R8, slot, 40);
      a.ldx(8, R3, R8, mem.args + 8 * src.ip), a.aluImm(ALU.ADD, R3, 6);
      a.place(proto);
      readKernel(a, R3, 1, none);
      a.jmpImm(JMP.JNE, R0, src.protocol, none);
      a.ldx(8, R0, R8, slot), a.ldx(8, R1, R8, mem.args + 8 * src.ip), a.alu(ALU.ADD, R0, R1);
      a.stx(8, R8, slot, R0);
      a.ja(done);
      a.place(none);
      a.st(8, R8, slot, 0);
      a.place(done);
      return true;
    }
    case 'piPrio': {
      // As sched_pi_setprio's newprio: the task's normal_prio, or pi_task's prio when smaller.
      // Both are ints, negative for deadline tasks. The stack slot used is zeroed again by the
      // prologue after the arguments are loaded.
      const readInt = (index: number, offset: number, done: Label) => {
        a.ldx(8, R3, R9, 8 * index);
        a.jmpImm(JMP.JEQ, R3, 0, done);
        a.aluImm(ALU.ADD, R3, offset);
        a.st(8, FP, -8, 0);
        a.mov(R1, FP), a.aluImm(ALU.ADD, R1, -8), a.movImm(R2, 4);
        a.call(HELPER.probe_read_kernel);
        a.jmpImm(JMP.JNE, R0, 0, done);
        a.ldx(4, R0, FP, -8), a.aluImm(ALU.LSH, R0, 32), a.aluImm(ALU.ARSH, R0, 32);
      };
      const done = a.label('piprio.done');
      a.st(8, R8, slot, 0);
      readInt(src.task, src.normalPrio, done);
      a.stx(8, R8, slot, R0);
      readInt(src.piTask, src.prio, done);
      a.ldx(8, R1, R8, slot);
      a.jmp(JMP.JSGE, R0, R1, done);
      a.stx(8, R8, slot, R0);
      a.place(done);
      return true;
    }
    case 'exitReason': {
      // DTrace's CLD_EXITED (1), CLD_KILLED (2), CLD_DUMPED (3) from task_struct.exit_code. The
      // stack slot used is zeroed again by the prologue after the arguments are loaded.
      a.call(HELPER.get_current_task);
      a.mov(R3, R0), a.aluImm(ALU.ADD, R3, src.exitCodeOffset);
      a.st(8, FP, -8, 0);
      a.mov(R1, FP), a.aluImm(ALU.ADD, R1, -8), a.movImm(R2, 4);
      a.call(HELPER.probe_read_kernel);
      a.ldx(4, R1, FP, -8);
      const done = a.label('exit.done');
      a.movImm(R0, 1);
      a.mov(R2, R1), a.aluImm(ALU.AND, R2, 0x7f);
      a.jmpImm(JMP.JEQ, R2, 0, done);
      a.movImm(R0, 3);
      a.jmpImm(JMP.JSET, R1, 0x80, done);
      a.movImm(R0, 2);
      a.place(done);
      a.stx(8, R8, slot, R0);
      return true;
    }
    default:
      return false;
  }
}
