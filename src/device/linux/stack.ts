// The stack and symbol actions on Linux: stack(), ustack(), jstack() and the symbol actions
// (sym, mod, usym, umod, uaddr) write their records -- in the principal buffer or in an
// aggregation key -- as DTrace's kernel lays them out:
//   stack()            nframes u64 PCs, zero padded (bpf_get_stack, kernel)
//   ustack()/jstack()  u64 pid, nframes u64 PCs zero padded (bpf_get_stack, BPF_F_USER_STACK),
//                      strsize bytes of (here always empty) frame strings
//   sym()/mod()        u64 address
//   usym/umod/uaddr    u64 pid, u64 address
// The pid lets the consumer symbolize user addresses against that process's mappings.
// bpf_get_stack zeroes what it does not fill, and the whole buffer when it fails.

import * as D from '../../dif/constants.js';
import { optionDefault } from '../../options.js';
import type { RecordDescription } from '../device.js';
import { ALU, type BpfAsm, HELPER, JMP, R0, R1, R2, R3, R4, R8, R9 } from './bpf-asm.js';

const BPF_FUNC_get_stack = 67;
/** bpf_get_stack's flags: how many frames to skip, in the low 8 bits. */
const BPF_F_SKIP_FIELD_MASK = 0xff;
const BPF_F_USER_STACK = 1 << 8;

/** Is this the kind of a stack or symbol action? */
export function isStackAction(kind: number): boolean {
  switch (kind) {
    case D.DTRACEACT_STACK: case D.DTRACEACT_USTACK: case D.DTRACEACT_JSTACK:
    case D.DTRACEACT_SYM: case D.DTRACEACT_MOD:
    case D.DTRACEACT_USYM: case D.DTRACEACT_UMOD: case D.DTRACEACT_UADDR:
      return true;
    default:
      return false;
  }
}

function roundUp8(n: number): number {
  return (n + 7) & ~7;
}

/** The record of a stack or symbol action (offset 0; the layout places it); null for other kinds. */
export function stackRecord(kind: number, arg: bigint): RecordDescription | null {
  let size: number;
  switch (kind) {
    case D.DTRACEACT_STACK:
      size = 8 * Number(arg);
      break;
    case D.DTRACEACT_USTACK:
    case D.DTRACEACT_JSTACK: {
      const { nframes, strsize } = D.unpackUstackArg(arg);
      size = roundUp8(8 * (nframes + 1) + strsize);
      break;
    }
    case D.DTRACEACT_SYM: case D.DTRACEACT_MOD:
      size = 8;
      break;
    case D.DTRACEACT_USYM: case D.DTRACEACT_UMOD: case D.DTRACEACT_UADDR:
      size = 16;
      break;
    default:
      return null;
  }
  return { action: kind, size, offset: 0, alignment: 8, arg, uarg: 0n, type: size === 8 && kind === D.DTRACEACT_SYM ? 'uint' : 'bytes' };
}

/** r0 := the current process id (tgid). Clobbers r0. */
function currentPid(a: BpfAsm): void {
  a.call(HELPER.get_current_pid_tgid);
  a.aluImm(ALU.RSH, R0, 32);
}

/** bpf_get_stack(ctx, r8 + off, size, flags) into per-CPU scratch memory (flags in r4: null). */
function getStack(a: BpfAsm, off: number, size: number, flags: number | null): void {
  a.mov(R1, R9);
  a.mov(R2, R8);
  a.aluImm(ALU.ADD, R2, off);
  a.movImm(R3, size);
  if (flags !== null) a.movImm(R4, flags);
  a.call(BPF_FUNC_get_stack);
}

/**
 * The kernel frames stack() and caller leave out at the top: `frames` always, then each of the
 * next MACHINERY_FRAMES that lies in a code range of `machinery` -- a raw tracepoint's glue
 * (__bpf_trace_EVENT, a frame of its own where it cannot tail-call bpf_trace_runN, as for the
 * system call tracepoints; __traceiter_EVENT, called when the tracepoint has several callbacks),
 * which the program looks at in the 8 * MACHINERY_FRAMES bytes of mem at `scratch`. NO_KERNEL_STACK
 * for none at all.
 */
export interface KernelSkip {
  frames: number;
  machinery?: [bigint, bigint][];
  scratch?: number;
}

const MACHINERY_FRAMES = 2;

/** r4 = bpf_get_stack's flags for a kernel stack past `skip`. */
function kernelFlags(a: BpfAsm, skip: KernelSkip): void {
  const ranges = skip.machinery ?? [];
  if (ranges.length === 0 || skip.scratch === undefined) return a.movImm(R4, skip.frames & BPF_F_SKIP_FIELD_MASK);
  getStack(a, skip.scratch, 8 * MACHINERY_FRAMES, skip.frames & BPF_F_SKIP_FIELD_MASK);
  const done = a.label('skip.done');
  a.movImm(R4, skip.frames);
  for (let k = 0; k < MACHINERY_FRAMES; k++) {
    const inside = a.label('skip.inside');
    a.ldx(8, R1, R8, skip.scratch + 8 * k);
    for (const [lo, hi] of ranges) {
      const below = a.label('skip.below');
      a.ld64(R2, lo);
      a.jmp(JMP.JLT, R1, R2, below);
      a.ld64(R2, hi);
      a.jmp(JMP.JLT, R1, R2, inside);
      a.place(below);
    }
    a.ja(done);
    a.place(inside);
    a.aluImm(ALU.ADD, R4, 1);
  }
  a.place(done);
}

/**
 * Write a stack or symbol action's record at r8 + off (scratch memory: the record being built or
 * the aggregation key). `evaluate` emits the action's DIF object, leaving its value in r0;
 * `probePid` the pid of the thread the probe describes (context-task.ts), whose address space
 * usym/umod/uaddr addresses belong to. ustack() records the current thread's pid: the stack
 * bpf_get_stack reads is always the current thread's. `kernelSkip`: frames stack() leaves out at
 * the top (a raw tracepoint program's own and bpf_trace_runN's, which a tracepoint program's
 * stack, taken from the tracepoint's registers, does not hold).
 */
export function emitStackRecord(a: BpfAsm, kind: number, arg: bigint, off: number, evaluate: () => void, probePid: () => void = () => currentPid(a), kernelSkip: KernelSkip = { frames: 0 }): void {
  switch (kind) {
    case D.DTRACEACT_STACK: {
      const n = Number(arg);
      if (n > 0 && kernelSkip.frames === NO_KERNEL_STACK) a.zero(R8, off, 8 * n);
      else if (n > 0) kernelFlags(a, kernelSkip), getStack(a, off, 8 * n, null);
      return;
    }
    case D.DTRACEACT_USTACK:
    case D.DTRACEACT_JSTACK: {
      const { nframes, strsize } = D.unpackUstackArg(arg);
      currentPid(a);
      a.stx(8, R8, off, R0);
      if (nframes > 0) getStack(a, off + 8, 8 * nframes, BPF_F_USER_STACK);
      const strings = off + 8 * (nframes + 1);
      a.zero(R8, strings, roundUp8(8 * (nframes + 1) + strsize) - 8 * (nframes + 1));
      return;
    }
    case D.DTRACEACT_SYM:
    case D.DTRACEACT_MOD:
      evaluate();
      a.stx(8, R8, off, R0);
      return;
    default:
      // usym, umod, uaddr: the address, then the pid before it.
      evaluate();
      a.stx(8, R8, off + 8, R0);
      probePid();
      a.stx(8, R8, off, R0);
  }
}

/** `kernelSkip` of a probe with no kernel stack (BEGIN, END, ERROR): stack() is empty, caller 0. */
export const NO_KERNEL_STACK = -1;

/** Frames stackdepth and ustackdepth count at most: the kernel's default perf_event_max_stack. */
export const STACK_DEPTH_FRAMES = Number(optionDefault('maxframes'));

/**
 * caller, ucaller, stackdepth, ustackdepth into r0, as DTrace for Linux has them: bpf_get_stack
 * at r8 + off (STACK_DEPTH_FRAMES u64s of scratch), kernel frames past `kernelSkip` (the same
 * frames stack() shows) or the user stack. caller/ucaller are the second frame, the first being
 * the probe site itself; a depth is the number of frames found, 0 when none can be read.
 */
export function emitStackBuiltin(a: BpfAsm, id: number, off: number, kernelSkip: KernelSkip = { frames: 0 }, maxframes = STACK_DEPTH_FRAMES): void {
  const user = id === D.DIF_VAR_UCALLER || id === D.DIF_VAR_USTACKDEPTH;
  if (!user && kernelSkip.frames === NO_KERNEL_STACK) return a.movImm(R0, 0);
  let flags: number | null = BPF_F_USER_STACK;
  if (!user) kernelFlags(a, kernelSkip), (flags = null);
  if (id === D.DIF_VAR_CALLER || id === D.DIF_VAR_UCALLER) {
    // bpf_get_stack zeroes what it does not fill, and all of it when it fails.
    getStack(a, off, 16, flags);
    a.ldx(8, R0, R8, off + 8);
    return;
  }
  getStack(a, off, 8 * STACK_DEPTH_FRAMES, flags);
  const ok = a.label('depth.ok');
  a.jmpImm(JMP.JSGE, R0, 0, ok);
  a.movImm(R0, 0);
  a.place(ok);
  a.aluImm(ALU.RSH, R0, 3);
  // As DTrace for Linux, a depth counts at most maxframes frames.
  if (maxframes < STACK_DEPTH_FRAMES) {
    const within = a.label('depth.max');
    a.jmpImm(JMP.JLE, R0, maxframes, within);
    a.movImm(R0, maxframes);
    a.place(within);
  }
}
