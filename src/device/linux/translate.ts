// DIF -> eBPF: one BPF program per probe, holding every ECB enabled on that probe.
//
// Shape of a program (see docs/ARCHITECTURE.md, "The Linux bridge"):
//   prologue: save ctx (r9), find this CPU's scratch memory (r8), check the tracing activity,
//             publish the scalar addresses of the string table and globals, fill args[] from the
//             probe's context (the provider's part);
//   per ECB:  predicate DIFO -> skip; record header; each action's DIFO -> its record, key or
//             aggregation update; perf_event_output of the record;
//   faults:   a fault record (epid 0) carrying the ERROR probe's arguments, then the next ECB.
//
// DIF registers live in stack slots, except the two most used of each DIF object, which live in
// r6/r7 (regalloc.ts); a CMP/TST and the branch after it become one conditional jump. Values are
// 64-bit; strings are passed by reference as kernel addresses (scalars to the verifier) and read
// with bpf_probe_read_kernel_str, as DTrace passes them by address. Scratch strings (execname,
// ...) get a static slot per instruction site. Each piece is emitted the simple way; peephole.ts
// then drops what the finished program never uses (DTRACE_DEBUG_BPF=1 lists the result,
// DTRACE_BPF_NOOPT=1 turns register allocation and the clean-up passes off).

import * as D from '../../dif/constants.js';
import type { EcbDescription } from '../../dof/program.js';
import type { Difo } from '../../dif/difo.js';
import type { RecordDescription } from '../device.js';
import type { DeviceDebug } from './debug.js';
import { RECORD_HEADER_SIZE } from '../../abi/records.js';
import { translateCall } from './subroutines.js';
import { CHAIN_ABOVE, type ChainLink } from './chain.js';
import { type SlotPlan, slotPlan } from './tstrings.js';
import { disassemble } from './bpf-disasm.js';
import { optimize } from './peephole.js';
import { allocateRegisters, fusedComparisons } from './regalloc.js';
import { type VariableEnv, isVariableOp, loadStringSlot, storeStringSlot, translateVariable, writableDynamic, writableLocals } from './variables.js';
import { isAggIncrement, translateAggregation } from './aggregate.js';
import { type SpeculationEnv, emitMarkers, emitSpeculativeAction, emitSuppressionCheck } from './speculation.js';
import { type KernelSkip, STACK_DEPTH_FRAMES, emitStackBuiltin, emitStackRecord, isStackAction } from './stack.js';
import { emitRegister } from './registers.js';
import { emitCurcpu, isCpuPair } from './cpuinfo.js';
import { emitVtimestamp, type VtimeEnv } from './vtime.js';
import { emitDestructiveAction } from './destructive.js';
import { type ContextTask, emitComm, emitPid, emitTask, emitTid, emitUidOrGid } from './context-task.js';
import { type ErrorProbeEnv, emitErrorBlock, jumpToErrorBlock } from './error-probe.js';
import {
  ALU, BpfAsm, FP, HELPER, JMP, Label, R0, R1, R2, R3, R4, R5, R8, R9,
  BPF_F_CURRENT_CPU, BPF_NOEXIST, type JmpOp, type Size,
} from './bpf-asm.js';

/** Offsets in the per-CPU scratch memory (one per-CPU array element). */
export interface MemLayout {
  self: number; // u64: scalar address of this element
  strtabBase: number; // u64: scalar address of the string table map value
  globalsBase: number; // u64: scalar address of the globals map value
  args: number; // u64[10]
  cpuinfo: number; // u64: the cpuinfo map value's address, made a scalar (cpuinfo.ts)
  tuple: number; // u64[DIF_DTR_STACK]: the DIF tuple stack
  cmpA: number; // strsize bytes
  cmpB: number; // strsize bytes
  key: number; // aggregation key being built
  keyMax: number;
  aggIncr: number; // u64: the increment of the aggregating action being evaluated
  buf: number; // record being built
  bufMax: number;
  /** String temporaries (tstrings.ts): slots of poolSlot bytes. */
  pool: number;
  poolSlot: number;
  /** DTrace's scratch space (alloca(), copyinto(), bcopy()): the only part of mem DIF may store to. */
  scratch: number;
  scratchMax: number;
  /** The clauses' working space (subroutines' work areas, static slots), taken per clause. */
  work: number;
  workMax: number;
  size: number;
  /** u32 words of the firing probe's values in a program shared by several probes. */
  probeInfo?: number;
  /** ERROR_AREA_SIZE bytes for the error block (error-probe.ts). */
  errorArea?: number;
  /** u64: where strtok(NULL, ...) goes on (strtok.ts). */
  strtok?: number;
  /** u64: the context task's task_struct address, on probes with env.contextTask. */
  task?: number;
  /** STACK_DEPTH_FRAMES u64s for caller, stackdepth, ... and regs[]/uregs[] (stack.ts, registers.ts). */
  stack?: number;
}

/** Where each argument of the probe comes from, emitted by the provider's prologue. */
export type ArgLoader = (a: BpfAsm, mem: MemLayout) => void;

export interface AggregationMap {
  fd: number;
  keyed: boolean; // per-CPU hash keyed by the tuple; else a per-CPU array of one element
  keySize: number;
  valueSize: number;
  action: number;
  /** Offset of this aggregation's initial value in the aggregation init map. */
  initOffset: number;
  /**
   * A map shared by aggregations of one kind and key shape: a keyless one's element in the
   * array, or a keyed one's id, a u64 after the tuple (at keySize) in the hash's key.
   */
  shared?: { index: number } | { id: number };
  /** aggsize holds no entry of it (layout.ts aggregationEntries): every new key is a drop. */
  noRoom?: true;
  /**
   * A value larger than a per-CPU map's (a fine llquantize): one copy for every CPU, which
   * the update adds to atomically; the consumer reads it as CPU 0's.
   */
  oneCopy?: true;
  /**
   * clear() or trunc() names it: its data is in one of two maps of its kind (fd is the first)
   * behind this one-slot map of maps, whose slot the device switches (agg-switch.ts); the update
   * looks up the map in the slot first.
   */
  outerFd?: number;
}

export interface EcbPlan {
  epid: number;
  desc: EcbDescription;
  /** For each action: its record in the principal buffer, its key record, or null. */
  records: (RecordDescription | null)[];
  keyRecords: (RecordDescription | null)[];
  dataSize: number; // bytes after the record header
  /** Does this ECB write a principal-buffer record when it fires? */
  emits: boolean;
}

/** A user global in the globals map value; strings and by-reference ones are read by address. */
export interface GlobalVar {
  offset: number;
  size: number;
  string: boolean;
  byRef: boolean;
}

export interface TranslateEnv {
  /**
   * The per-CPU scratch memory: an array of one element, or two when perf-event programs
   * (profile, tick) are enabled. Those run from a timer interrupt, inside whatever program the
   * timer interrupted on that CPU (raw tracepoint and uprobe-multi programs do not hold the CPU
   * against them), so they build their records in element 1 (`memElement`), every other program
   * in element 0; the kernel runs no perf-event program inside another.
   */
  memFd: number;
  memElement?: number;
  globalsFd: number;
  strtabFd: number;
  eventsFd: number;
  mem: MemLayout;
  strsize: number;
  /** Offset in the string table map of each DIFO's own string table. */
  difoStrtab: Map<Difo, number>;
  /** Offsets in the string table map of this probe's provider/module/function/name. */
  probeStrings: { prov: number; mod: number; func: number; name: number };
  /** Offset in the string table map of this device's instance name (probeinstance, RFD 2). */
  instanceString: number;
  /**
   * The provider string is a prefix the firing process's pid completes (USDT probes enabled in
   * every process of a binary: probeprov is python1234 in process 1234).
   */
  providerPid?: boolean;
  probeId: number;
  globals: Map<number, GlobalVar>;
  /** The globals held by reference (structs, unions, arrays): [start, end) in the globals value. */
  writableGlobals?: { start: number; end: number };
  activityOffset: number; // u32 in globals: 0 active, 1 draining (after exit()), 2 warming up (before BEGIN has run)
  /** Does exit() in a clause stop the probe's later clauses? (Every probe but END.) */
  exitStopsClauses?: boolean;
  aggregations: Map<bigint, AggregationMap>; // by aggregation id (action uarg)
  /** Array map of one element holding every aggregation's initial value (aggregate.ts). */
  aggInitFd: number;
  /** Per-CPU array of one u64: aggregation drops (failed inserts into full keyed maps). */
  aggDropsFd?: number;
  /** task_struct offsets for ppid. */
  task: { realParent: number; tgid: number } | null;
  walltimeOffsetNs: bigint;
  /** Thread-locals, clause-locals and associative arrays (variables.ts). */
  vars?: VariableEnv;
  /** Context offset of the system call return value, on syscall return probes (for errno). */
  errno?: { offset: number } | undefined;
  /**
   * One program for several probes (src/device/linux/dispatch.ts): the firing probe's id, name
   * strings and EPIDs are u32 words at mem offset `info` (filled by the prologue), laid out as
   * PROBE_INFO_WORDS; `epidWord` maps each plan's epid to its word. probeId, probeStrings and
   * the plans' epids then only identify the template probe the program was translated for.
   */
  shared?: { info: number; epidWord: Map<number, number> } | undefined;
  /** The ERROR probe's clauses, run when this program faults (error-probe.ts). */
  errorProbe?: ErrorProbeEnv;
  /** Array map of every CPU's cpuinfo_t, when a DIF object uses curcpu as a pointer (cpuinfo.ts). */
  cpuinfoFd?: number;
  /** The per-CPU arrivals map and offsets vtimestamp reads (vtime.ts), when a DIF object uses it. */
  vtime?: VtimeEnv;
  /** Speculation maps and options (speculation.ts), when the program uses speculations. */
  spec?: SpeculationEnv;
  /** The probe describes another thread than the current one (context-task.ts). */
  contextTask?: ContextTask | undefined;
  /** Kernel frames above the probe site that stack() leaves out (stack.ts). */
  kernelStackSkip?: number;
  /** Code ranges of tracepoint glue stack() also leaves out where it tops the stack (KernelSkip). */
  stackMachinery?: () => [bigint, bigint][];
  /** The context holds the interrupted registers (profile probes): regs[] (registers.ts). */
  ctxRegs?: boolean;
  /** -x cpu: the program does nothing on any other CPU. */
  cpu?: number | undefined;
  /** -x maxframes: stackdepth and ustackdepth count no more frames (stack.ts). */
  maxframes?: number;
  /** Developers' switches (LinuxDeviceOptions.debug). */
  debug?: DeviceDebug;
  /** A program too long for one may be loaded as a chain of programs (chain.ts). */
  chainable?: boolean;
}

export class TranslateError extends Error {
  constructor(message: string, readonly ecb: number, readonly action: number) {
    super(message);
  }
}

export const DIF_SLOT = (r: number) => -8 * r; // r1..r7 -> fp-8..fp-56
export const CC_A = -64, CC_B = -72, TMP = -80, ZERO_KEY = -88;
/** Where a DIF load's bytes land (its own slot: ZERO_KEY must keep its zero). */
export const LOAD_TMP = -96;
/** The dynamic variable entry a struct-valued load last found (variables.ts): the map value
 *  pointer and its address as a number, both 0 until one is found (-104 is error-probe.ts's). */
export const DYNVAR_PTR = -112, DYNVAR_ADDR = -120;
/** The map a switched aggregation's update found in its outer map (aggregate.ts). */
export const AGG_MAP = -128;
const STACK_ZERO_FROM = DYNVAR_ADDR;
/** BPF_JMP | BPF_JCOND: may_goto, taken once the program's loop budget is spent. */

// DIF branch -> BPF jump on (cc_a, cc_b)
const BRANCH: Record<number, JmpOp> = {
  [D.DIF_OP_BE]: JMP.JEQ, [D.DIF_OP_BNE]: JMP.JNE,
  [D.DIF_OP_BG]: JMP.JSGT, [D.DIF_OP_BGU]: JMP.JGT,
  [D.DIF_OP_BGE]: JMP.JSGE, [D.DIF_OP_BGEU]: JMP.JGE,
  [D.DIF_OP_BL]: JMP.JSLT, [D.DIF_OP_BLU]: JMP.JLT,
  [D.DIF_OP_BLE]: JMP.JSLE, [D.DIF_OP_BLEU]: JMP.JLE,
};

const SIGNED_BRANCH = new Set([D.DIF_OP_BG, D.DIF_OP_BGE, D.DIF_OP_BL, D.DIF_OP_BLE]);

const BINARY: Record<number, number> = {
  [D.DIF_OP_OR]: ALU.OR, [D.DIF_OP_XOR]: ALU.XOR, [D.DIF_OP_AND]: ALU.AND,
  [D.DIF_OP_SLL]: ALU.LSH, [D.DIF_OP_SRL]: ALU.RSH, [D.DIF_OP_SRA]: ALU.ARSH,
  [D.DIF_OP_SUB]: ALU.SUB, [D.DIF_OP_ADD]: ALU.ADD, [D.DIF_OP_MUL]: ALU.MUL,
};

export function isAggregation(kind: number): boolean {
  return (kind & 0xff00) === D.DTRACEACT_AGGREGATION;
}

/** Translates the ECBs of one probe into one BPF program. */
export class ProbeTranslator {
  readonly a = new BpfAsm();
  private scratchNext = 0;
  private workNext = 0;
  /** The string comparisons' loop counter in this clause's working space. */
  private scmpCounter: number | undefined;
  /** The string slots of the DIF object being translated and the pc of its instruction. */
  private slots: SlotPlan | null = null;
  private pc = -1;
  /** The current ECB's epid and action (1-based; 0 is the predicate), for fault records. */
  ecbIndex = 0;
  actionIndex = 0;
  /**
   * The DIF tuple stack, tracked statically: DIF code pushes a call's arguments or an array's
   * keys just before the instruction that consumes them, so the depth at each instruction is
   * known when translating. Entry i's value lives at mem.tuple + 8 * i.
   */
  /** The tuple stack: strings and (as keys) structs by reference, a struct with its size. */
  readonly tuple: { byRef: boolean; type: number; size?: number; constant?: bigint }[] = [];
  /** DIF registers kept in BPF registers in the DIF object being translated (regalloc.ts). */
  private regs = new Map<number, number>();
  private spilled = false;
  /** The current ECB has written its record header: `timestamp` is the header's, as in DTrace. */
  private stamped = false;

  constructor(
    readonly env: TranslateEnv,
    private loadArgs: ArgLoader,
    private checkActivity: boolean,
  ) {}

  /**
   * The program for `plans`. As one link of a chain (chain.ts), it tail-calls the program at
   * `chain.next` of the chain's program array after its last clause, and knows whether a clause
   * of an earlier link has an exit() action.
   */
  translate(plans: EcbPlan[], chain?: ChainLink): Buffer {
    const a = this.a, env = this.env, mem = env.mem;
    if (chain?.exitBefore || (chain && this.errorExits())) this.exitBefore = true;
    const out = a.label('out');
    a.mov(R9, R1);
    if (env.cpu !== undefined) {
      a.call(HELPER.get_smp_processor_id);
      a.jmpImm(JMP.JNE, R0, env.cpu, out);
    }
    a.st(4, FP, ZERO_KEY, env.memElement ?? 0);
    a.ldMap(R1, env.memFd);
    a.mov(R2, FP);
    a.aluImm(ALU.ADD, R2, ZERO_KEY);
    a.call(HELPER.map_lookup_elem);
    if (env.memElement) a.st(4, FP, ZERO_KEY, 0);
    a.jmpImm(JMP.JEQ, R0, 0, out);
    a.mov(R8, R0);
    if (this.checkActivity) {
      a.ldMapValue(R1, env.globalsFd, env.activityOffset);
      a.ldx(4, R1, R1, 0);
      a.jmpImm(JMP.JNE, R1, 0, out);
    }
    // Publish scalar addresses: storing a pointer and loading it back gives the verifier a scalar
    // (permitted for CAP_PERFMON), which DIF can then treat as an ordinary address.
    a.stx(8, R8, mem.self, R8);
    a.ldMapValue(R1, env.strtabFd, 0);
    a.stx(8, R8, mem.strtabBase, R1);
    a.ldMapValue(R1, env.globalsFd, 0);
    a.stx(8, R8, mem.globalsBase, R1);
    if (env.contextTask) a.ldx(8, R0, R9, 8 * env.contextTask.arg), a.stx(8, R8, mem.task!, R0);
    this.loadArgs(a, mem);
    const stackZeroing: number[] = [];
    for (let off = STACK_ZERO_FROM; off < 0; off += 8) stackZeroing.push(a.length), a.st(8, FP, off, 0);

    for (const plan of plans) {
      const start = a.length;
      this.ecb(plan);
      this.clauseLengths.push(a.length - start);
    }
    if (chain?.next !== undefined) {
      // The next link runs on the same context and CPU; clause-locals and tstrings live in mem.
      a.mov(R1, R9);
      a.ldMap(R2, chain.progArrayFd);
      a.movImm(R3, chain.next);
      a.call(HELPER.tail_call);
    }

    a.place(out);
    a.movImm(R0, 0);
    a.exit();
    emitErrorBlock(this, (p) => this.ecb(p), (off, size) => this.output(off, size));
    // Too long for one program: the caller loads it as a chain (chain.ts), so spare the clean-up.
    if (!chain && env.chainable && plans.length > 1 && a.length > CHAIN_ABOVE) {
      this.tooLong = true;
      return Buffer.alloc(0);
    }
    // Drop what this program does not use: published slots and args[] nobody reads, zeroing of
    // stack slots always written before they are read, and the dead code that leaves.
    const emitted = a.length;
    const removed = env.debug?.noOptimize ? 0 : optimize(a, {
      self: mem.self,
      memSlots: [mem.self, mem.strtabBase, mem.globalsBase, ...(env.contextTask ? [mem.task!] : []), ...Array.from({ length: 10 }, (_, i) => mem.args + 8 * i)]
        .map((off) => ({ off, size: 8 })),
      stackZeroing,
    });
    const insns = a.finish();
    if (env.debug?.printPrograms)
      process.stderr.write(`dtrace: BPF program for probe ${env.probeId}: ${insns.length / 8} instructions (${removed} of ${emitted} removed)\n${disassemble(insns).join('\n')}\n`);
    return insns;
  }

  /** Each clause's length in the program translate() made, before clean-up (chain.ts cuts by it). */
  readonly clauseLengths: number[] = [];
  /** translate() found the program too long for one and made none: load a chain (chain.ts). */
  tooLong = false;

  /** Where the clause being translated ends (abandoning it records nothing more). */
  clauseNext: Label | undefined;
  /** Has a clause translated so far in this program an exit() action? */
  private exitBefore = false;

  /** Does a clause of the ERROR probe call exit()? */
  private errorExits(): boolean {
    return this.env.errorProbe?.plans.some((p) => p.desc.actions.some((x) => x.kind === D.DTRACEACT_EXIT)) === true;
  }

  private ecb(plan: EcbPlan): void {
    const a = this.a, mem = this.env.mem;
    const next = a.label(`ecb${plan.epid}.next`);
    this.clauseNext = next;
    this.ecbIndex = plan.epid;
    this.scratchNext = 0;
    this.workNext = 0;
    this.scmpCounter = undefined;
    this.stamped = false;
    // As DTrace for Linux does, once a clause has called exit() the probe's later clauses do not
    // run (the activity word is no longer ACTIVE).
    if (this.env.exitStopsClauses && this.exitBefore) {
      a.ldMapValue(R1, this.env.globalsFd, this.env.activityOffset);
      a.ldx(4, R1, R1, 0);
      a.jmpImm(JMP.JEQ, R1, 1, next);
    }
    // A fault in this clause fires ERROR, whose clause may call exit() too.
    if (plan.desc.actions.some((x) => x.kind === D.DTRACEACT_EXIT) || this.errorExits()) this.exitBefore = true;
    if (plan.desc.predicate) {
      this.actionIndex = 0;
      this.difo(plan.desc.predicate, next);
      a.jmpImm(JMP.JEQ, R0, 0, next);
    }
    // Record header: epid, timestamp (not for a clause that records nothing: nothing reads it,
    // unless commit() or discard() send a marker made of it).
    if (plan.emits || plan.desc.actions.some((x) => x.kind === D.DTRACEACT_COMMIT || x.kind === D.DTRACEACT_DISCARD)) {
      if (this.env.shared) this.sharedWord(R1, this.env.shared.epidWord.get(plan.epid)!), a.stx(4, R8, mem.buf, R1);
      else a.st(4, R8, mem.buf, plan.epid);
      a.st(4, R8, mem.buf + 4, 0);
      a.call(HELPER.ktime_get_ns);
      a.stx(8, R8, mem.buf + 8, R0);
      this.stamped = true;
    }

    const acts = plan.desc.actions;
    let keyStart = -1;
    for (let i = 0; i < acts.length; i++) {
      const act = acts[i];
      this.actionIndex = i + 1;
      if (isAggIncrement(acts, i)) {
        this.difo(act.difo!, next), a.stx(8, R8, mem.aggIncr, R0);
        continue;
      }
      const keyRec = plan.keyRecords[i];
      if (keyRec) {
        if (keyStart < 0) {
          keyStart = i;
          const agg = this.aggregationFor(plan, i);
          this.zeroKey(plan, i, roundUp(agg.keySize, 8));
        }
        if (isStackAction(act.kind)) emitStackRecord(a, act.kind, act.arg, mem.key + keyRec.offset, () => this.difo(act.difo!, next), () => emitPid(this), this.kernelSkip());
        else this.evaluateInto(act.difo!, mem.key + keyRec.offset, keyRec, next);
        continue;
      }
      if (isAggregation(act.kind)) {
        if (act.difo) this.difo(act.difo, next);
        else a.movImm(R0, 0);
        translateAggregation(this, acts, i);
        keyStart = -1;
        continue;
      }
      const rec = plan.records[i];
      if (rec && isStackAction(act.kind)) {
        emitStackRecord(a, act.kind, act.arg, mem.buf + RECORD_HEADER_SIZE + rec.offset, () => this.difo(act.difo!, next), () => emitPid(this), this.kernelSkip());
        continue;
      }
      if (act.difo && rec && rec.size > 0) this.evaluateInto(act.difo, mem.buf + RECORD_HEADER_SIZE + rec.offset, rec, next);
      else if (act.difo) this.difo(act.difo, next);
      else a.movImm(R0, 0);
      if (!act.difo && rec && rec.size > 0) this.store(R0, mem.buf + RECORD_HEADER_SIZE + rec.offset, rec);
      if (D.isSpeculativeAction(act.kind)) emitSpeculativeAction(this, plan, act.kind, next);
      if (D.isDestructiveAction(act.kind)) emitDestructiveAction(this, act.kind, rec, next);
      // As in DTrace, timestamp holds still within a clause except across chill().
      if (act.kind === D.DTRACEACT_CHILL) this.stamped = false;
      if (act.kind === D.DTRACEACT_EXIT) {
        a.ldMapValue(R1, this.env.globalsFd, this.env.activityOffset);
        a.st(4, R1, 0, 1);
      }
    }
    if (plan.emits) {
      const suppressed = emitSuppressionCheck(this, plan);
      this.output(mem.buf, RECORD_HEADER_SIZE + roundUp(plan.dataSize, 8));
      if (suppressed) a.place(suppressed);
    }
    emitMarkers(this);
    a.place(next);
    this.stamped = false;
  }

  /**
   * Zero the key buffer before the key records from action i on are stored, skipping the 8-byte
   * words those stores will write in full (integers, byte copies, a bare execname).
   */
  private zeroKey(plan: EcbPlan, first: number, size: number): void {
    const acts = plan.desc.actions, covered = new Set<number>();
    for (let j = first; j < acts.length && !isAggregation(acts[j].kind); j++) {
      const rec = plan.keyRecords[j], difo = acts[j].difo;
      if (!rec || !difo || isStackAction(acts[j].kind)) continue;
      let full = 0;
      if (rec.type === 'bytes' || (rec.type === 'int' && [1, 2, 4, 8].includes(rec.size))) full = rec.size;
      else if (rec.type === 'string' && isBareVariable(difo, D.DIF_VAR_EXECNAME)) full = Math.min(16, rec.size);
      for (let w = rec.offset; w + 8 <= rec.offset + full; w += 8) if (w % 8 === 0) covered.add(w);
    }
    for (let w = 0; w < size; w += 8) if (!covered.has(w)) this.a.st(8, R8, this.env.mem.key + w, 0);
  }

  /** The aggregation an action at or after index i belongs to. */
  private aggregationFor(plan: EcbPlan, i: number): AggregationMap {
    const acts = plan.desc.actions;
    for (let j = i; j < acts.length; j++) {
      if (isAggregation(acts[j].kind)) {
        const agg = this.env.aggregations.get(acts[j].uarg);
        if (!agg) throw new TranslateError('aggregation without a map', this.ecbIndex, j + 1);
        return agg;
      }
    }
    throw new TranslateError('tuple record without an aggregation', this.ecbIndex, i + 1);
  }

  /** perf_event_output of `size` bytes at scratch offset `off` to this CPU's buffer. */
  output(off: number, size: number): void {
    const a = this.a;
    a.mov(R1, R9);
    a.ldMap(R2, this.env.eventsFd);
    a.ld64(R3, BigInt(BPF_F_CURRENT_CPU));
    a.mov(R4, R8);
    a.aluImm(ALU.ADD, R4, off);
    a.movImm(R5, size);
    a.call(HELPER.perf_event_output);
  }

  /**
   * Evaluate a DIF object into the record at mem offset `off`. A bare `execname` is copied
   * straight from the task (get_current_comm pads with zeros, as the record needs), without the
   * round trip through a scratch string.
   */
  private evaluateInto(difo: Difo, off: number, rec: RecordDescription, next: Label): void {
    if (rec.type === 'string' && isBareVariable(difo, D.DIF_VAR_EXECNAME)) {
      emitComm(this, off, Math.min(16, rec.size));
      return;
    }
    this.difo(difo, next);
    this.store(R0, off, rec, next);
  }

  /** Store a DIF value (in reg) as a record at mem offset `off`. */
  private store(reg: number, off: number, rec: RecordDescription, next?: Label): void {
    const a = this.a;
    if (rec.type === 'string' || rec.type === 'bytes') {
      // Copied by reference (dtrace_store_by_ref): a string, or memory traced whole (tracemem(),
      // a struct, an array member). A source that cannot be read (NULL, a bad stringof(), a bad
      // pointer) is an invalid address found outside DIF, so with no DIF offset: a fault, not a
      // record of zeros.
      a.mov(R3, reg);
      if (next) a.stx(8, FP, TMP, R3);
      a.mov(R1, R8);
      a.aluImm(ALU.ADD, R1, off);
      a.movImm(R2, rec.size);
      a.call(rec.type === 'string' ? HELPER.probe_read_kernel_str : HELPER.probe_read_kernel);
      if (next) {
        const ok = a.label('byref.ok');
        a.jmpImm(JMP.JSGE, R0, 0, ok);
        a.ldx(8, R1, FP, TMP);
        this.fault(D.DTRACEFLT_BADADDR, -1, R1, next);
        a.place(ok);
      }
      return;
    }
    a.stx(rec.size as Size, R8, off, reg);
  }

  // ---------------------------------------------------------------- DIF objects

  /** Emit a DIF object; its value ends in R0. Faults jump to a fault record, then `next`. */
  private difo(difo: Difo, next: Label): void {
    const a = this.a;
    const labels = branchTargets(difo, a);
    this.tuple.length = 0;
    const outerSlots = this.slots, outerPc = this.pc, outerRegs = this.regs;
    this.slots = slotPlan(difo);
    // Hot DIF registers in r6/r7 (zero to start with, as the verifier wants them written; the
    // peephole pass drops the zeroing when they are always set first), and fused comparisons.
    this.regs = this.env.debug?.noOptimize ? new Map() : allocateRegisters(difo);
    for (const reg of this.regs.values()) a.movImm(reg, 0);
    const d: DifoState = {
      difo, next, end: a.label('difo.end'), labels,
      strBase: this.env.difoStrtab.get(difo) ?? 0,
      fused: this.env.debug?.noOptimize ? new Set<number>() : fusedComparisons(difo),
      pending: null, skip: -1,
    };
    difo.insns.forEach((ins, pc) => {
      const l = labels.get(pc);
      if (l) a.place(l);
      if (pc === d.skip) return;
      this.pc = pc;
      this.instruction(d, ins, pc);
    });
    a.place(d.end);
    this.regs = outerRegs;
    this.slots = outerSlots, this.pc = outerPc;
  }

  /** One DIF instruction at `pc` of the DIF object `d`. */
  private instruction(d: DifoState, ins: number, pc: number): void {
    const a = this.a, mem = this.env.mem, difo = d.difo, next = d.next, labels = d.labels, strBase = d.strBase;
    const at = (target: number) => labels.get(target)!;
    const get = (reg: number, r: number) => this.getReg(reg, r);
    const put = (reg: number, r: number) => this.putReg(reg, r);
    const op = (ins >>> 24) & 0xff;
    const r1 = (ins >>> 16) & 0xff, r2 = (ins >>> 8) & 0xff, rd = ins & 0xff;
    const fault = (code: number, addrReg?: number) => this.fault(code, pc, addrReg, next);

    if (BINARY[op] !== undefined) {
      get(R1, r1), get(R2, r2), a.alu(BINARY[op], R1, R2), put(R1, rd);
      return;
    }
    if (BRANCH[op] !== undefined && d.pending) return this.fusedBranch(d, op, ins);
    if (BRANCH[op] !== undefined) return this.branch(op, ins, at);
    const load = D.DIF_LOADS.get(op);
    if (load) return this.load(load, r1, rd, fault);
    if (D.DIF_STORES.has(op)) return this.storeThrough(op, r1, rd, fault);
    if (op === D.DIF_OP_COPYS) return this.copys(d, pc, r1, r2, rd, fault);
    switch (op) {
      case D.DIF_OP_SDIV: case D.DIF_OP_UDIV: case D.DIF_OP_SREM: case D.DIF_OP_UREM: {
        get(R1, r1), get(R2, r2);
        const ok = a.label('div.ok');
        a.jmpImm(JMP.JNE, R2, 0, ok);
        fault(D.DTRACEFLT_DIVZERO);
        a.place(ok);
        const signed = op === D.DIF_OP_SDIV || op === D.DIF_OP_SREM;
        const alu = op === D.DIF_OP_SDIV || op === D.DIF_OP_UDIV ? ALU.DIV : ALU.MOD;
        a.alu(alu, R1, R2, signed ? 1 : 0);
        put(R1, rd);
        return;
      }
      case D.DIF_OP_NOT:
        get(R1, r1), a.aluImm(ALU.XOR, R1, -1), put(R1, rd);
        return;
      case D.DIF_OP_MOV:
        get(R1, r1), put(R1, rd);
        return;
      case D.DIF_OP_CMP:
        if (d.fused.has(pc)) d.pending = { r1, r2, tst: false };
        else get(R1, r1), get(R2, r2), a.stx(8, FP, CC_A, R1), a.stx(8, FP, CC_B, R2);
        return;
      case D.DIF_OP_TST:
        if (d.fused.has(pc)) d.pending = { r1, r2: 0, tst: true };
        else get(R1, r1), a.stx(8, FP, CC_A, R1), a.st(8, FP, CC_B, 0);
        return;
      case D.DIF_OP_SCMP:
        this.strcmp(r1, r2, get);
        return;
      case D.DIF_OP_BA:
        a.ja(at(ins & 0xffffff));
        return;
      case D.DIF_OP_RET:
        get(R0, rd);
        a.ja(d.end);
        return;
      case D.DIF_OP_NOP:
        return;
      case D.DIF_OP_SETX: {
        const v = difo.inttab[(ins >>> 8) & 0xffff];
        if (v === undefined) throw new TranslateError(`setx: bad integer table index at DIF offset ${pc}`, this.ecbIndex, this.actionIndex);
        a.ld64(R1, v), put(R1, rd);
        return;
      }
      case D.DIF_OP_SETS:
        a.ldx(8, R1, R8, mem.strtabBase);
        a.aluImm(ALU.ADD, R1, strBase + ((ins >>> 8) & 0xffff));
        put(R1, rd);
        return;
      case D.DIF_OP_LDGS:
        if (isCpuPair(difo.insns, pc)) {
          // `cpu` (curcpu->cpu_id): the CPU number itself; the LDUW after it is skipped.
          a.call(HELPER.get_smp_processor_id);
          put(R0, rd);
          d.skip = pc + 1;
          return;
        }
        this.loadVariable((ins >>> 8) & 0xffff, pc, difo);
        put(R0, rd);
        return;
      case D.DIF_OP_LDGA:
        this.withSpilled(() => emitRegister(this, r1, r2, this.stackScratch()));
        put(R0, rd);
        return;
      case D.DIF_OP_STGS:
        this.storeGlobal((ins >>> 8) & 0xffff, rd, get);
        return;
      case D.DIF_OP_PUSHTR:
      case D.DIF_OP_PUSHTV: {
        if (this.tuple.length >= D.DIF_DTR_STACK) fault(D.DTRACEFLT_TUPOFLOW);
        else {
          get(R1, rd);
          a.stx(8, R8, mem.tuple + 8 * this.tuple.length, R1);
          const byRef = op === D.DIF_OP_PUSHTR;
          const size = byRef && r1 !== D.DIF_TYPE_STRING ? constantAt(d.difo, pc, r2, d.labels) : undefined;
          this.tuple.push({ byRef, type: r1, size: size === undefined ? undefined : Number(size), constant: constantAt(d.difo, pc, rd, d.labels) });
        }
        return;
      }
      case D.DIF_OP_POPTS:
        this.tuple.pop();
        return;
      case D.DIF_OP_FLUSHTS:
        this.tuple.length = 0;
        return;
      case D.DIF_OP_CALL:
        this.withSpilled(() => translateCall(this, (ins >>> 8) & 0xffff, rd, pc, next));
        return;
      default:
        if (isVariableOp(op)) return this.withSpilled(() => translateVariable(this, op, ins, fault));
        throw new TranslateError(`DIF instruction ${D.DIF_OP_NAMES[op] ?? op} is not supported by the Linux bridge yet`, this.ecbIndex, this.actionIndex);
    }
  }

  /** A branch fused with the CMP or TST before it (regalloc.ts): one conditional jump. */
  private fusedBranch(d: DifoState, op: number, ins: number): void {
    const a = this.a;
    const at = (target: number) => d.labels.get(target)!;
    const cmp = d.pending!, target = at(ins & 0xffffff);
    d.pending = null;
    const x = this.regOf(cmp.r1, R1);
    if (SIGNED_BRANCH.has(op)) {
      // As below: the sign of the wrapped difference.
      if (x !== R1) a.mov(R1, x);
      if (!cmp.tst) a.alu(ALU.SUB, R1, this.regOf(cmp.r2, R2));
      a.jmpImm(BRANCH[op], R1, 0, target);
    } else if (cmp.tst || cmp.r2 === 0) a.jmpImm(BRANCH[op], x, 0, target);
    else a.jmp(BRANCH[op], x, this.regOf(cmp.r2, R2), target);
  }

  /** A branch on the condition codes a CMP or TST left in the stack frame. */
  private branch(op: number, ins: number, at: (target: number) => Label): void {
    const a = this.a;
    a.ldx(8, R1, FP, CC_A), a.ldx(8, R2, FP, CC_B);
    if (SIGNED_BRANCH.has(op)) {
      // DTrace's signed branches test the sign of the wrapped difference (cc_n, with cc_v
      // never set), so INT64_MIN < INT64_MAX is false there too.
      a.alu(ALU.SUB, R1, R2);
      a.jmpImm(BRANCH[op], R1, 0, at(ins & 0xffffff));
    } else a.jmp(BRANCH[op], R1, R2, at(ins & 0xffffff));
  }

  /** A load from kernel or user memory through bpf_probe_read; an unreadable address faults. */
  private load(load: { size: 1 | 2 | 4 | 8; signed: boolean; space: string }, r1: number, rd: number, fault: (code: number, addrReg?: number) => void): void {
    const a = this.a;
    const get = (reg: number, r: number) => this.getReg(reg, r);
    const put = (reg: number, r: number) => this.putReg(reg, r);
    const { size, signed } = load;
    const user = load.space === 'user';
    get(R3, r1);
    a.stx(8, FP, TMP, R3);
    a.st(8, FP, LOAD_TMP, 0);
    a.mov(R1, FP), a.aluImm(ALU.ADD, R1, LOAD_TMP), a.movImm(R2, size);
    a.call(user ? HELPER.probe_read_user : HELPER.probe_read_kernel);
    const ok = a.label('load.ok');
    a.jmpImm(JMP.JEQ, R0, 0, ok);
    a.ldx(8, R1, FP, TMP);
    fault(D.DTRACEFLT_BADADDR, R1);
    a.place(ok);
    a.ldx(size, R1, FP, LOAD_TMP);
    if (signed && size < 8) a.movsx(R1, R1, (size * 8) as 8 | 16 | 32);
    put(R1, rd);
  }

  /**
   * dtrace_canstore for `size` bytes at the address in R2: this CPU's scratch memory (alloca()),
   * the global structs, unions and arrays, the clause-local ones (dtrace_canstore_statvar); else
   * an invalid address fault. Each region found gets a label where R4 holds the offset in it
   * (bounded for the verifier) and a way to put its base address in R1 (trashes nothing else).
   */
  private storeRegions(size: number, fault: (code: number, addrReg?: number) => void): { at: Label; base: () => void }[] {
    const a = this.a, mem = this.env.mem;
    const regions: { at: Label; base: () => void }[] = [];
    const inMem = (off: number) => () => { a.mov(R1, R8), a.alu(ALU.ADD, R1, R4), a.aluImm(ALU.ADD, R1, off); };
    // Only the scratch this clause's alloca()s have taken so far: a store past them faults, as
    // DTrace for Linux bounds it (Solaris let it write anywhere in scratch).
    const taken = this.scratchNext;
    if (size <= taken) {
      const at = a.label('store.scratch');
      a.ldx(8, R1, R8, mem.self), a.aluImm(ALU.ADD, R1, mem.scratch);
      a.mov(R4, R2), a.alu(ALU.SUB, R4, R1);
      a.jmpImm(JMP.JLE, R4, taken - size, at);
      regions.push({ at, base: inMem(mem.scratch) });
    }
    const wg = this.env.writableGlobals;
    if (wg && wg.end - wg.start >= size) {
      const at = a.label('store.global');
      a.ldx(8, R1, R8, mem.globalsBase), a.aluImm(ALU.ADD, R1, wg.start);
      a.mov(R4, R2), a.alu(ALU.SUB, R4, R1);
      a.jmpImm(JMP.JLE, R4, wg.end - wg.start - size, at);
      regions.push({ at, base: () => { a.ldMapValue(R1, this.env.globalsFd, wg.start), a.alu(ALU.ADD, R1, R4); } });
    }
    const wl = writableLocals(this.env.vars);
    if (wl && wl.end - wl.start >= size) {
      const at = a.label('store.local');
      a.ldx(8, R1, R8, mem.self), a.aluImm(ALU.ADD, R1, wl.start);
      a.mov(R4, R2), a.alu(ALU.SUB, R4, R1);
      a.jmpImm(JMP.JLE, R4, wl.end - wl.start - size, at);
      regions.push({ at, base: inMem(wl.start) });
    }
    const dyn = writableDynamic(this.env.vars);
    if (dyn >= size) {
      // The entry a load last found, as dtrace_canstore allows the dynamic variable space.
      const at = a.label('store.dynvar'), skip = a.label('store.nodynvar');
      a.ldx(8, R1, FP, DYNVAR_ADDR);
      a.jmpImm(JMP.JEQ, R1, 0, skip);
      a.mov(R4, R2), a.alu(ALU.SUB, R4, R1);
      a.jmpImm(JMP.JLE, R4, dyn - size, at);
      a.place(skip);
      regions.push({ at, base: () => { a.ldx(8, R1, FP, DYNVAR_PTR), a.alu(ALU.ADD, R1, R4); } });
    }
    // With no region to take it (the size too large for any), the fault is always taken: behind
    // a branch never taken (r8 is never NULL) so the code after it stays reachable for the verifier.
    const after = a.label('store.none');
    if (regions.length === 0) a.jmpImm(JMP.JEQ, R8, 0, after);
    fault(D.DTRACEFLT_BADADDR, R2);
    if (regions.length === 0) a.place(after);
    return regions;
  }

  /** A store through a pointer (STB..STX): only where DTrace lets D code write. */
  private storeThrough(op: number, r1: number, rd: number, fault: (code: number, addrReg?: number) => void): void {
    const a = this.a;
    const size = D.DIF_STORES.get(op)!;
    this.getReg(R2, rd);
    const regions = this.storeRegions(size, fault);
    // No alignment fault: DTrace for Linux stores a misaligned int (x86 allows it; a struct
    // without end padding puts one at st[1].x), where illumos faults.
    const done = a.label('store.done');
    regions.forEach((r, i) => {
      a.place(r.at);
      this.getReg(R3, r1);
      r.base();
      a.stx(size, R1, 0, R3);
      if (i < regions.length - 1) a.ja(done);
    });
    a.place(done);
  }

  /** COPYS: a struct, union, array or string copied to where a store may write (storeRegions). */
  private copys(d: DifoState, pc: number, r1: number, r2: number, rd: number, fault: (code: number, addrReg?: number) => void): void {
    const a = this.a;
    // The source is read with bpf_probe_read_kernel, a failed read an invalid address. The
    // verifier needs the size as a constant: the SETX the compiler puts just before.
    const size = constantAt(d.difo, pc, r2, d.labels);
    if (size === undefined) throw new TranslateError(`copys at DIF offset ${pc * 4}: the size must be a constant`, this.ecbIndex, this.actionIndex);
    this.getReg(R2, rd);
    const regions = this.storeRegions(Number(size), fault);
    if (regions.length === 0) return;
    const done = a.label('copys.done');
    regions.forEach((r) => {
      a.place(r.at);
      if (size === 0n) { a.ja(done); return; }
      r.base();
      this.copyOrFault(Number(size), (reg) => this.getReg(reg, r1), fault, done);
    });
    a.place(done);
  }

  /**
   * Copy `size` bytes from the kernel address `src` puts in a register to where R1 points, then
   * on to `ok`; a source that cannot be read is an invalid address fault at that address (a
   * by-reference value copied into a variable, a key or a COPYS destination).
   */
  copyOrFault(size: number, src: (reg: number) => void, fault: (code: number, addrReg?: number) => void, ok: Label): void {
    const a = this.a;
    a.movImm(R2, size);
    src(R3);
    a.call(HELPER.probe_read_kernel);
    a.jmpImm(JMP.JEQ, R0, 0, ok);
    src(R1);
    fault(D.DTRACEFLT_BADADDR, R1);
  }

  /** Load DIF register r into BPF register reg (%r0 reads as zero). */
  getReg(reg: number, r: number): void {
    const held = this.held(r);
    if (r === 0) this.a.movImm(reg, 0);
    else if (held !== undefined) { if (held !== reg) this.a.mov(reg, held); }
    else this.a.ldx(8, reg, FP, DIF_SLOT(r));
  }

  /** The BPF register DIF register r is kept in (regalloc.ts), when it is not in its slot. */
  private held(r: number): number | undefined {
    return this.spilled ? undefined : this.regs.get(r);
  }

  /** A BPF register holding DIF register r: its own, or `tmp` loaded with it. */
  private regOf(r: number, tmp: number): number {
    const held = this.held(r);
    if (held !== undefined) return held;
    this.getReg(tmp, r);
    return tmp;
  }

  /**
   * Emit code that may use r6/r7 itself (subroutines, variables, other helpers' instructions):
   * the allocated DIF registers go to their slots around it, and DIF registers are read and
   * written there meanwhile.
   */
  private withSpilled(emit: () => void): void {
    if (this.regs.size === 0 || this.spilled) return emit();
    for (const [r, reg] of this.regs) this.a.stx(8, FP, DIF_SLOT(r), reg);
    this.spilled = true;
    try {
      emit();
    } finally {
      this.spilled = false;
    }
    for (const [r, reg] of this.regs) this.a.ldx(8, reg, FP, DIF_SLOT(r));
  }

  /** Store BPF register reg into DIF register r (writes to %r0 are dropped). */
  putReg(reg: number, r: number): void {
    const held = this.held(r);
    if (r === 0) return;
    if (held !== undefined) { if (held !== reg) this.a.mov(held, reg); }
    else this.a.stx(8, FP, DIF_SLOT(r), reg);
  }

  /** A fault: write the fault record (the ERROR probe's arguments) and abandon this ECB. */
  fault(code: number, pc: number, addrReg: number | undefined, next: Label): void {
    const a = this.a, mem = this.env.mem;
    if (addrReg !== undefined) a.stx(8, R8, mem.buf + RECORD_HEADER_SIZE + 16, addrReg);
    else a.st(8, R8, mem.buf + RECORD_HEADER_SIZE + 16, 0);
    a.st(4, R8, mem.buf, 0);
    if (this.env.shared) {
      this.sharedWord(R1, this.env.shared.epidWord.get(this.ecbIndex)!);
      a.stx(4, R8, mem.buf + RECORD_HEADER_SIZE, R1);
    } else a.st(4, R8, mem.buf + RECORD_HEADER_SIZE, this.ecbIndex);
    a.st(4, R8, mem.buf + RECORD_HEADER_SIZE + 4, this.actionIndex);
    a.st(4, R8, mem.buf + RECORD_HEADER_SIZE + 8, pc < 0 ? -1 : pc * 4); // -1: not in DIF (an action's own check)
    a.st(4, R8, mem.buf + RECORD_HEADER_SIZE + 12, code);
    if (jumpToErrorBlock(this, next)) return; // ERROR clauses run first (error-probe.ts)
    this.output(mem.buf, RECORD_HEADER_SIZE + 24);
    a.ja(next);
  }

  /** SCMP: compare two strings by value; the result (-1, 0, 1) becomes the condition codes. */
  strcmp(r1: number, r2: number, get: (reg: number, r: number) => void): void {
    const a = this.a, mem = this.env.mem, n = this.env.strsize;
    for (const [r, off] of [[r1, mem.cmpA], [r2, mem.cmpB]] as const) {
      get(R3, r);
      a.mov(R1, R8), a.aluImm(ALU.ADD, R1, off), a.movImm(R2, n);
      a.call(HELPER.probe_read_kernel_str);
      const ok = a.label('scmp.ok');
      a.jmpImm(JMP.JSGT, R0, 0, ok);
      a.st(1, R8, off, 0); // unreadable: compare as ""
      a.place(ok);
    }
    // The loop's counter lives in mem and may_goto bounds it too (as subroutines.ts's loops): the
    // verifier checks the body about twice instead of once per byte, so a clause may hold many
    // comparisons (was: "The sequence of 8193 jumps is too complex").
    const loop = a.label('scmp.loop'), differ = a.label('scmp.differ');
    const equal = a.label('scmp.equal'), done = a.label('scmp.done');
    const ctr = (this.scmpCounter ??= this.scratch(8));
    a.st(8, R8, ctr, 0);
    a.place(loop);
    a.mayGoto(equal);
    a.ldx(8, R3, R8, ctr);
    a.jmpImm(JMP.JGE, R3, n, equal);
    a.mov(R4, R8), a.alu(ALU.ADD, R4, R3), a.ldx(1, R4, R4, mem.cmpA);
    a.mov(R5, R8), a.alu(ALU.ADD, R5, R3), a.ldx(1, R5, R5, mem.cmpB);
    a.jmp(JMP.JNE, R4, R5, differ);
    a.jmpImm(JMP.JEQ, R4, 0, equal);
    a.aluImm(ALU.ADD, R3, 1);
    a.stx(8, R8, ctr, R3);
    a.ja(loop);
    a.place(differ);
    a.movImm(R1, 1);
    a.jmp(JMP.JGT, R4, R5, done);
    a.movImm(R1, -1);
    a.ja(done);
    a.place(equal);
    a.movImm(R1, 0);
    a.place(done);
    a.stx(8, FP, CC_A, R1);
    a.st(8, FP, CC_B, 0);
  }

  /** The kernel frames this probe's stack() and caller leave out (stack.ts). */
  private kernelSkip(): KernelSkip {
    const frames = this.env.kernelStackSkip ?? 0;
    const machinery = this.env.stackMachinery?.() ?? [];
    return machinery.length > 0 ? { frames, machinery, scratch: this.stackScratch() } : { frames };
  }

  /** The offset in mem of STACK_DEPTH_FRAMES u64s for stack built-ins and registers. */
  private stackScratch(): number {
    return this.env.mem.stack ?? this.scratch(8 * STACK_DEPTH_FRAMES);
  }

  /** Working space of `size` bytes for this clause; returns its offset in mem. */
  scratch(size: number): number {
    const off = this.env.mem.work + this.workNext;
    this.workNext += roundUp(size, 8);
    if (this.workNext > this.env.mem.workMax)
      throw new TranslateError(`out of per-CPU memory for the clause's working space (${this.env.mem.workMax} bytes left)`, this.ecbIndex, this.actionIndex);
    return off;
  }

  /**
   * Where the string a subroutine call produces goes: the call's slot of the string pool
   * (tstrings.ts), or working space for a call the pool does not cover.
   */
  stringSlot(size: number): number {
    const slot = this.slots?.slotOf.get(this.pc);
    const mem = this.env.mem;
    if (slot !== undefined && size <= mem.poolSlot) return mem.pool + slot * mem.poolSlot;
    return this.scratch(size);
  }

  /** Bytes of DTrace's scratch space this clause has not taken yet. */
  scratchLeft(): number {
    return this.env.mem.scratchMax - this.scratchNext;
  }

  /** `size` bytes of DTrace's scratch space (alloca()) for this clause. */
  allocaSlot(size: number): number {
    const off = this.env.mem.scratch + this.scratchNext;
    this.scratchNext += roundUp(size, 8);
    if (this.scratchNext > this.env.mem.scratchMax)
      throw new TranslateError(`alloca() needs more than scratchsize (${this.env.mem.scratchMax} bytes) in one clause`, this.ecbIndex, this.actionIndex);
    return off;
  }

  /** LDGS: a built-in variable or a global scalar; value in R0. */
  private loadVariable(id: number, pc: number, difo: Difo): void {
    const a = this.a, env = this.env, mem = env.mem;
    if (id >= D.DIF_VAR_OTHER_UBASE) {
      const g = env.globals.get(id);
      if (!g) throw new TranslateError(`unknown global variable ${id}`, this.ecbIndex, this.actionIndex);
      if (g.string || g.byRef) {
        a.ldx(8, R0, R8, mem.globalsBase);
        a.aluImm(ALU.ADD, R0, g.offset);
        if (g.string) loadStringSlot(a, () => (a.ldMapValue(R1, env.globalsFd, g.offset + g.size - 1), a.ldx(1, R1, R1, 0)));
      } else {
        a.ldMapValue(R1, env.globalsFd, g.offset);
        a.ldx(g.size as Size, R0, R1, 0);
      }
      return;
    }
    const probeString = (off: number) => {
      a.ldx(8, R0, R8, mem.strtabBase);
      // Shared programs: `off` is the word holding the string's offset.
      if (env.shared) this.sharedWord(R1, off), a.alu(ALU.ADD, R0, R1);
      else a.aluImm(ALU.ADD, R0, off);
    };
    const ps = env.shared ? PROBE_INFO_WORDS : env.probeStrings;
    if (id >= D.DIF_VAR_ARG0 && id <= D.DIF_VAR_ARG9) {
      a.ldx(8, R0, R8, mem.args + 8 * (id - D.DIF_VAR_ARG0));
      return;
    }
    switch (id) {
      // The thread's values come from the probe's context task (context-task.ts).
      case D.DIF_VAR_PID:
        return emitPid(this);
      case D.DIF_VAR_TID:
        return emitTid(this);
      case D.DIF_VAR_UID:
        return emitUidOrGid(this, 'uid');
      case D.DIF_VAR_GID:
        return emitUidOrGid(this, 'gid');
      case D.DIF_VAR_TIMESTAMP:
        // One firing has one timestamp: the record's (so -x temporal orders records by it).
        if (this.stamped) a.ldx(8, R0, R8, mem.buf + 8);
        else a.call(HELPER.ktime_get_ns);
        return;
      case D.DIF_VAR_WALLTIMESTAMP:
        a.call(HELPER.ktime_get_ns), a.ld64(R1, env.walltimeOffsetNs), a.alu(ALU.ADD, R0, R1);
        return;
      case D.DIF_VAR_EPID:
        if (env.shared) this.sharedWord(R0, env.shared.epidWord.get(this.ecbIndex)!);
        else a.movImm(R0, this.ecbIndex);
        return;
      case D.DIF_VAR_ID:
        if (env.shared) this.sharedWord(R0, PROBE_INFO_WORDS.id);
        else a.movImm(R0, env.probeId);
        return;
      case D.DIF_VAR_PROBEPROV:
        if (env.providerPid) return this.providerWithPid(() => probeString(ps.prov));
        return probeString(ps.prov);
      case D.DIF_VAR_PROBEMOD: return probeString(ps.mod);
      case D.DIF_VAR_PROBEINSTANCE:
        // One device, one instance: the same string for every probe, shared programs included.
        a.ldx(8, R0, R8, mem.strtabBase), a.aluImm(ALU.ADD, R0, env.instanceString);
        return;
      case D.DIF_VAR_PROBEFUNC: return probeString(ps.func);
      case D.DIF_VAR_PROBENAME: return probeString(ps.name);
      case D.DIF_VAR_EXECNAME: {
        const off = this.scratch(16);
        emitComm(this, off, 16);
        a.ldx(8, R0, R8, mem.self), a.aluImm(ALU.ADD, R0, off);
        return;
      }
      case D.DIF_VAR_CURCPU:
        if (env.cpuinfoFd === undefined) throw new TranslateError('curcpu needs the cpuinfo map', this.ecbIndex, this.actionIndex);
        return emitCurcpu(a, env.cpuinfoFd, mem.cpuinfo);
      case D.DIF_VAR_PPID: {
        if (!env.task) throw new TranslateError('ppid needs task_struct offsets from BTF', this.ecbIndex, this.actionIndex);
        emitTask(this);
        a.aluImm(ALU.ADD, R0, env.task.realParent);
        this.readKernel(R0, 8);
        a.aluImm(ALU.ADD, R0, env.task.tgid);
        this.readKernel(R0, 4);
        return;
      }
      case D.DIF_VAR_ERRNO: {
        // -ret when the return value is an error (-4095..-1), else 0; 0 outside syscall returns.
        if (!env.errno) return a.movImm(R0, 0);
        const zero = a.label('errno.zero'), done = a.label('errno.done');
        a.ldx(8, R0, R9, env.errno.offset);
        a.jmpImm(JMP.JSGE, R0, 0, zero);
        a.jmpImm(JMP.JSLE, R0, -4096, zero);
        a.aluImm(ALU.NEG, R0, 0);
        a.ja(done);
        a.place(zero);
        a.movImm(R0, 0);
        a.place(done);
        return;
      }
      case D.DIF_VAR_CURTHREAD:
        return emitTask(this);
      case D.DIF_VAR_VTIMESTAMP: {
        const vt = env.vtime;
        if (!vt) throw new TranslateError('vtimestamp needs the vtime map', this.ecbIndex, this.actionIndex);
        return emitVtimestamp(a, vt, this.scratch(32), () => {
          a.call(HELPER.get_current_task), a.aluImm(ALU.ADD, R0, vt.sumExecRuntime);
          this.readKernel(R0, 8);
        });
      }
      case D.DIF_VAR_CALLER: case D.DIF_VAR_UCALLER: case D.DIF_VAR_STACKDEPTH: case D.DIF_VAR_USTACKDEPTH:
        return emitStackBuiltin(a, id, this.stackScratch(), this.kernelSkip(), env.maxframes);
      case D.DIF_VAR_ZONENAME: {
        // Linux has no zones: every thread is in the global zone, as DTrace for Linux says.
        const off = this.scratch(8);
        a.st(4, R8, off, 0x626f6c67), a.st(4, R8, off + 4, 0x6c61); // "global\0"
        a.ldx(8, R0, R8, mem.self), a.aluImm(ALU.ADD, R0, off);
        return;
      }
      default:
        throw new TranslateError(`built-in variable ${D.DIF_VAR_NAME_BY_ID.get(id) ?? '0x' + id.toString(16)} is not supported by the Linux bridge yet`, this.ecbIndex, this.actionIndex);
    }
    void pc, difo;
  }

  /**
   * R0 = the address of a scratch string: the provider prefix `prefix` leaves in R0 (a kernel
   * address), then the firing process's pid in decimal -- unrolled, as a pid has 10 digits at most.
   */
  private providerWithPid(prefix: () => void): void {
    const a = this.a, mem = this.env.mem;
    const PREFIX = 64, DIGITS = 16;
    const off = this.scratch(PREFIX + DIGITS);
    prefix();
    a.mov(R3, R0);
    a.mov(R1, R8), a.aluImm(ALU.ADD, R1, off), a.movImm(R2, PREFIX);
    a.call(HELPER.probe_read_kernel_str);
    a.stx(8, FP, TMP, R0); // its length with the NUL, or an error
    emitPid(this);
    a.mov(R1, R0);
    a.st(1, R8, off + PREFIX + DIGITS - 1, 0);
    const join = a.label('prov.pid');
    for (let i = 0; i < 10; i++) {
      a.mov(R2, R1), a.aluImm(ALU.MOD, R2, 10), a.aluImm(ALU.ADD, R2, 48);
      a.stx(1, R8, off + PREFIX + DIGITS - 2 - i, R2);
      a.aluImm(ALU.DIV, R1, 10);
      a.movImm(R2, i + 2); // digits and the NUL
      if (i < 9) a.jmpImm(JMP.JEQ, R1, 0, join);
    }
    a.place(join);
    // Copy the digits over the prefix's NUL: dst = slot + (len - 1), len clamped to [1, PREFIX].
    a.ldx(8, R0, FP, TMP);
    const ok = a.label('prov.len');
    a.jmpImm(JMP.JSGT, R0, 0, ok);
    a.movImm(R0, 1);
    a.place(ok);
    a.aluImm(ALU.SUB, R0, 1), a.aluImm(ALU.AND, R0, PREFIX - 1);
    a.mov(R1, R8), a.aluImm(ALU.ADD, R1, off), a.alu(ALU.ADD, R1, R0);
    a.mov(R3, R8), a.aluImm(ALU.ADD, R3, off + PREFIX + DIGITS), a.alu(ALU.SUB, R3, R2);
    a.call(HELPER.probe_read_kernel);
    a.ldx(8, R0, R8, mem.self), a.aluImm(ALU.ADD, R0, off);
  }

  /** reg = u32 word `word` of the firing probe's values in a shared program. */
  private sharedWord(reg: number, word: number): void {
    this.a.ldx(4, reg, R8, this.env.shared!.info + 4 * word);
  }

  /** R0 = the `size`-byte value at kernel address R0 (0 when unreadable). */
  readKernel(addrReg: number, size: Size): void {
    const a = this.a;
    a.mov(R3, addrReg);
    a.st(8, FP, TMP, 0);
    a.mov(R1, FP), a.aluImm(ALU.ADD, R1, TMP), a.movImm(R2, size);
    a.call(HELPER.probe_read_kernel);
    a.ldx(size, R0, FP, TMP);
  }

  private storeGlobal(id: number, rs: number, get: (reg: number, r: number) => void): void {
    const a = this.a, env = this.env;
    const g = env.globals.get(id);
    if (!g) throw new TranslateError(`cannot store to variable ${id}`, this.ecbIndex, this.actionIndex);
    if (g.string) {
      get(R3, rs);
      a.ldMapValue(R1, env.globalsFd, g.offset);
      storeStringSlot(a, g.size);
      return;
    }
    if (g.byRef) {
      // A struct, union or array assigned whole: its bytes copied from the source's address.
      get(R3, rs);
      a.ldMapValue(R1, env.globalsFd, g.offset);
      a.movImm(R2, g.size);
      a.call(HELPER.probe_read_kernel);
      return;
    }
    get(R2, rs);
    a.ldMapValue(R1, env.globalsFd, g.offset);
    a.stx(g.size as Size, R1, 0, R2);
  }
}

/** What translating one DIF object keeps from one instruction to the next. */
interface DifoState {
  difo: Difo;
  /** Where a fault goes on to, after its fault record. */
  next: Label;
  /** After the DIF object: where RET jumps, its value in R0. */
  end: Label;
  /** A label for each branch target (by DIF pc). */
  labels: Map<number, Label>;
  /** The DIF object's string table's offset in the program's string table. */
  strBase: number;
  /** The CMPs and TSTs fused with the branch after them (regalloc.ts), and one seen. */
  fused: Set<number>;
  pending: { r1: number; r2: number; tst: boolean } | null;
  /** An instruction already translated with the one before it (curcpu's LDUW). */
  skip: number;
}

/** A label for each instruction a branch of the DIF object jumps to. */
function branchTargets(difo: Difo, a: BpfAsm): Map<number, Label> {
  const labels = new Map<number, Label>();
  for (const ins of difo.insns) {
    const op = (ins >>> 24) & 0xff;
    if (BRANCH[op] === undefined && op !== D.DIF_OP_BA) continue;
    const pc = ins & 0xffffff;
    if (!labels.has(pc)) labels.set(pc, a.label(`dif${pc}`));
  }
  return labels;
}

/**
 * The constant DIF register r holds at pc: the value of the SETX that last wrote it, found by
 * walking back within the straight-line code before pc (no jump target, branch or other write
 * of r in between); undefined when that is not so.
 */
export function constantAt(difo: Difo, pc: number, r: number, targets: Map<number, unknown>): bigint | undefined {
  for (let i = pc - 1; i >= 0 && !targets.has(i + 1); i--) {
    const ins = difo.insns[i]!, op = (ins >>> 24) & 0xff;
    if (BRANCH[op] !== undefined || op === D.DIF_OP_BA) return undefined;
    if ((ins & 0xff) !== r) continue;
    return op === D.DIF_OP_SETX ? difo.inttab[(ins >>> 8) & 0xffff] : undefined;
  }
  return undefined;
}

/** Is this DIF object just `ldgs id, %rN; ret %rN`? */
export function isBareVariable(difo: Difo, id: number): boolean {
  if (difo.insns.length !== 2) return false;
  const [ld, ret] = difo.insns;
  return ld >>> 24 === D.DIF_OP_LDGS && ((ld >>> 8) & 0xffff) === id && ret >>> 24 === D.DIF_OP_RET && (ret & 0xff) === (ld & 0xff);
}

/** Word indexes of a shared program's per-probe values; EPIDs follow from `epids`. */
export const PROBE_INFO_WORDS = { prov: 0, mod: 1, func: 2, name: 3, id: 4, epids: 5 } as const;

export function roundUp(n: number, to: number): number {
  return Math.ceil(n / to) * to;
}

