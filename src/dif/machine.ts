// The reference DIF machine: an interpreter of every DIF instruction (OpenDTrace specification,
// chapter 8), with the semantics of DTrace's in-kernel emulator. It checks what the code generator
// emits and what the eBPF translation must compute.
//
// Model:
// - eight 64-bit integer registers (%r0 always reads 0), the condition codes n/z/v/c set by CMP,
//   TST and SCMP, and the tuple stack (DIF_DTR_STACK entries) that feeds CALL and the keys of
//   associative arrays;
// - a small byte-addressed address space of regions: kernel and user memory a test populates,
//   each DIF object's string table (SETS yields an address in it), the probe context's strings,
//   the scratch area (ALLOCS, COPYS and string-returning subroutines) and variable storage;
// - global, thread-local and clause-local variables, scalars and associative arrays with tuple
//   keys, by value or (strings) by reference, as DTrace stores them;
// - faults as DTrace raises them: the fault code, the DIF offset of the instruction (index * 4) and
//   the illegal value, thrown as a DifFault.

import type { DifClause, DifType, DifVar, Difo } from './difo.js';
import * as D from './constants.js';
import { difIndex, difLabel, difOp, difR1, difR2, difRd, isBranchOp } from './builder.js';
import { callSubroutine } from './machine-subr.js';
import { validateDifo } from './validate.js';
import { optionDefault } from '../options.js';

const U64 = (v: bigint): bigint => BigInt.asUintN(64, v);
const S64 = (v: bigint): bigint => BigInt.asIntN(64, v);

// ---------------------------------------------------------------------------------------------
// Faults and load-time errors

/** A run-time fault, as DTrace reports it to the ERROR probe. */
export class DifFault extends Error {
  constructor(
    readonly fault: number, // DTRACEFLT_*
    readonly offset: number, // DIF offset: instruction index * 4
    readonly illval: bigint, // the illegal value (address), 0 when the fault has none
  ) {
    super(faultText(fault, illval));
    this.name = 'DifFault';
  }

  /** The consumer's account of where it happened: "divide-by-zero in action #2 at DIF offset 8". */
  where(action: number | 'predicate'): string {
    const site = action === 'predicate' ? 'predicate' : `action #${action}`;
    return `${this.message} in ${site} at DIF offset ${this.offset}`;
  }
}

/** What the consumer prints for a fault: "invalid address (0x0)", "divide-by-zero", ... */
export function faultText(fault: number, illval: bigint): string {
  const withAddress =
    fault === D.DTRACEFLT_BADADDR || fault === D.DTRACEFLT_BADALIGN || fault === D.DTRACEFLT_BADSTACK;
  if (withAddress) return `${D.faultMessage(fault)} (0x${U64(illval).toString(16)})`;
  return fault === D.DTRACEFLT_BADINDEX ? `${D.faultMessage(fault)} (${U64(illval)})` : D.faultMessage(fault);
}

/** Raised inside an instruction; run() turns it into a DifFault with the instruction's offset. */
export class FaultSignal {
  constructor(readonly fault: number, readonly illval: bigint = 0n) {}
}

/** A DIF object the kernel would refuse to load (dtrace_difo_validate). */
export class DifLoadError extends Error {
  constructor(readonly problems: string[]) {
    super(`DIF object rejected: ${problems.join('; ')}`);
    this.name = 'DifLoadError';
  }
}

// ---------------------------------------------------------------------------------------------
// Memory

export type RegionKind = 'kernel' | 'user' | 'strtab' | 'probe' | 'scratch' | 'variable';

export interface Region {
  base: bigint;
  bytes: Uint8Array;
  kind: RegionKind;
  writable: boolean; // DIF stores (ST*, COPYS, bcopy) may write here
}

// Where DTrace-owned memory lives in the model's address space (kernel addresses, above any a test
// would pick for its own kernel data).
const STRTAB_BASE = 0xffff_a000_0000_0000n;
const PROBE_BASE = 0xffff_b000_0000_0000n;
const SCRATCH_BASE = 0xffff_c000_0000_0000n;
const VARIABLE_BASE = 0xffff_d000_0000_0000n;
const REGION_STRIDE = 0x1_0000_0000n;

export class Memory {
  readonly regions: Region[] = [];

  map(base: bigint, bytes: Uint8Array, kind: RegionKind, writable = false): Region {
    const b = U64(base), end = b + BigInt(bytes.length);
    for (const r of this.regions) {
      if (b < r.base + BigInt(r.bytes.length) && r.base < end) {
        throw new Error(`memory at 0x${b.toString(16)} overlaps a mapped region`);
      }
    }
    const region = { base: b, bytes, kind, writable };
    this.regions.push(region);
    return region;
  }

  unmap(region: Region): void {
    const i = this.regions.indexOf(region);
    if (i >= 0) this.regions.splice(i, 1);
  }

  /** The region holding [addr, addr + size), or undefined. */
  find(addr: bigint, size = 1): Region | undefined {
    const a = U64(addr);
    for (const r of this.regions) {
      if (a >= r.base && a + BigInt(size) <= r.base + BigInt(r.bytes.length)) return r;
    }
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Context, options, results

/** The probe firing the DIF runs in: built-in variables come from here. */
export interface ProbeContext {
  args?: bigint[]; // arg0..arg9 and args[]
  regs?: bigint[];
  uregs?: bigint[];
  pid?: bigint;
  ppid?: bigint;
  /** Process ids of pid's ancestors, parent first (progenyof()). */
  ancestors?: bigint[];
  tid?: bigint;
  uid?: bigint;
  gid?: bigint;
  errno?: bigint;
  execname?: string;
  zonename?: string;
  probeprov?: string;
  /** RFD 2: the instance the probe fires on; 'host' when absent. */
  probeinstance?: string;
  probemod?: string;
  probefunc?: string;
  probename?: string;
  id?: bigint; // probe id
  epid?: bigint;
  timestamp?: bigint;
  vtimestamp?: bigint;
  walltimestamp?: bigint;
  curthread?: bigint;
  /** Address of this CPU's cpuinfo_t (a region the test maps); `cpu` is its first word. */
  curcpu?: bigint;
  ipl?: bigint;
  stackdepth?: bigint;
  ustackdepth?: bigint;
  caller?: bigint;
  ucaller?: bigint;
}

export interface MachineOptions {
  strsize?: number; // DTRACEOPT_STRSIZE (default: the option's)
  scratchSize?: number; // bytes of scratch per run (default 4096)
  /** Kernel-privileged (dtrace_kernel): RLD* may read any kernel memory. Default true. */
  kernelAccess?: boolean;
  /** How many dynamic variables (thread-locals, array elements) fit; default: no limit. */
  dynvarLimit?: number;
  /** rand()'s source; the default is a deterministic generator. */
  rand?: () => bigint;
  /** Speculations speculation() can hand out (DTRACEOPT_NSPEC, default 1). */
  nspec?: number;
}

export interface RunResult {
  value: bigint; // the returned register, as an unsigned 64-bit word
  signed: bigint; // the same word read as int64_t
  /** The string at `value` when the DIF object returns a string (empty for NULL). */
  string?: string;
  scratchUsed: number;
}

/** A stored dynamic variable: thread-local or associative array element. */
interface DynVar {
  value: bigint; // by-value data, or the address of its storage region for by-reference data
  region?: Region;
}

/** A scalar with static storage (global or clause-local by-reference variable). */
interface StaticVar {
  value: bigint; // by-value data
  region?: Region; // by-reference storage: 8-byte NULL marker, then the data
}

/** One clause (ECB) run as DTrace runs it: the predicate, then each action until one faults. */
export interface ClauseResult {
  fired: boolean; // the predicate held (or there is none)
  actions: (RunResult | undefined)[]; // per action; undefined for actions without DIF or not reached
  fault?: { where: number | 'predicate'; fault: DifFault }; // action numbers count from 1
}

interface TupleEntry {
  value: bigint;
  size: bigint; // 0: by value; else bytes referenced at value
}

// ---------------------------------------------------------------------------------------------
// The machine

export class DifMachine {
  readonly memory = new Memory();
  readonly strsize: number;
  readonly scratchSize: number;
  readonly kernelAccess: boolean;
  readonly rand: () => bigint;
  readonly dynvarLimit: number;
  /** Stores of dynamic variables that found no space: DTrace's "dynamic variable drops". */
  dynvarDrops = 0;

  /** Per-machine state that outlives a run, as DTrace's per-CPU state does. */
  strtokNext = 0n; // where strtok(NULL, ...) resumes; 0 when exhausted
  /** Which speculations speculation() has handed out and commit()/discard() not yet freed. */
  readonly speculationsInUse: boolean[];
  readonly globals = new Map<number, StaticVar>();
  readonly locals = new Map<number, StaticVar>();
  readonly dynvars = new Map<string, DynVar>();

  // Per-run state
  ctx: ProbeContext = {};
  scratch: Region;
  scratchPtr = 0; // offset of the next free scratch byte
  private probeRegion?: Region; // this run's built-in strings (execname, probename, ...)
  private probeUsed = 0;
  private readonly strtabs = new WeakMap<Difo, Region>();
  private nextStrtab = STRTAB_BASE;
  private nextVariable = VARIABLE_BASE;
  private randState = 0x2545f4914f6cdd1dn;

  constructor(opts: MachineOptions = {}) {
    this.strsize = opts.strsize ?? Number(optionDefault('strsize'));
    this.scratchSize = opts.scratchSize ?? 4096;
    this.kernelAccess = opts.kernelAccess ?? true;
    this.rand = opts.rand ?? (() => this.nextRandom());
    this.dynvarLimit = opts.dynvarLimit ?? Infinity;
    this.speculationsInUse = new Array<boolean>(opts.nspec ?? 1).fill(false);
    this.scratch = this.memory.map(SCRATCH_BASE, new Uint8Array(this.scratchSize), 'scratch', true);
  }

  /** speculation(): claim a free speculation and return its id (1..nspec); 0 when none is free. */
  claimSpeculation(): bigint {
    const i = this.speculationsInUse.indexOf(false);
    if (i < 0) return 0n;
    this.speculationsInUse[i] = true;
    return BigInt(i + 1);
  }

  /** commit(id) or discard(id) (once the consumer is done): the speculation is free again. */
  releaseSpeculation(id: bigint): void {
    if (id >= 1n && id <= BigInt(this.speculationsInUse.length)) this.speculationsInUse[Number(id) - 1] = false;
  }

  // ----- populating memory (tests)

  /** Map kernel memory at `addr` (read-only to DIF loads). */
  mapKernel(addr: bigint, bytes: Uint8Array | string): Region {
    return this.memory.map(addr, toBytes(bytes), 'kernel');
  }

  /** Map user memory of the traced process at `addr` (ULD*, copyin, copyinstr). */
  mapUser(addr: bigint, bytes: Uint8Array | string): Region {
    return this.memory.map(addr, toBytes(bytes), 'user');
  }

  /** Start a new probe firing: clause-local variables are forgotten. */
  newFiring(): void {
    for (const v of this.locals.values()) if (v.region) this.memory.unmap(v.region);
    this.locals.clear();
  }

  // ----- running

  /** Run one DIF object; scratch starts empty unless `keepScratch` (a clause's later actions). */
  run(difo: Difo, ctx: ProbeContext = {}, keepScratch = false): RunResult {
    const problems = validateDifo(difo);
    if (problems.length) throw new DifLoadError(problems);
    this.ctx = ctx;
    if (!keepScratch) {
      this.scratchPtr = 0;
      this.scratch.bytes.fill(0);
    }
    if (this.probeRegion) this.memory.unmap(this.probeRegion);
    this.probeRegion = undefined;
    const strtab = this.strtabRegion(difo);

    const regs: bigint[] = new Array<bigint>(D.DIF_DIR_NREGS).fill(0n);
    const tuple: TupleEntry[] = [];
    let ccN = false, ccZ = false, ccV = false, ccC = false;
    const text = difo.insns;
    let pc = 0;
    let rval = 0n;
    const set = (rd: number, v: bigint): void => {
      if (rd !== 0) regs[rd] = U64(v);
    };

    while (pc < text.length) {
      const opc = pc;
      const instr = text[pc++]!;
      const op = difOp(instr), r1 = difR1(instr), r2 = difR2(instr), rd = difRd(instr);
      const a = regs[r1]!, b = regs[r2]!;
      try {
        switch (op) {
          case D.DIF_OP_OR: set(rd, a | b); break;
          case D.DIF_OP_XOR: set(rd, a ^ b); break;
          case D.DIF_OP_AND: set(rd, a & b); break;
          // C leaves shifts by 64 or more undefined; x86 (and the eBPF JIT) use the count mod 64.
          case D.DIF_OP_SLL: set(rd, a << (b & 63n)); break;
          case D.DIF_OP_SRL: set(rd, a >> (b & 63n)); break;
          case D.DIF_OP_SRA: set(rd, S64(a) >> (b & 63n)); break;
          case D.DIF_OP_SUB: set(rd, a - b); break;
          case D.DIF_OP_ADD: set(rd, a + b); break;
          case D.DIF_OP_MUL: set(rd, a * b); break;
          case D.DIF_OP_SDIV:
            if (b === 0n) throw new FaultSignal(D.DTRACEFLT_DIVZERO);
            set(rd, S64(a) / S64(b)); // BigInt division truncates toward zero, as C does
            break;
          case D.DIF_OP_UDIV:
            if (b === 0n) throw new FaultSignal(D.DTRACEFLT_DIVZERO);
            set(rd, a / b);
            break;
          case D.DIF_OP_SREM:
            if (b === 0n) throw new FaultSignal(D.DTRACEFLT_DIVZERO);
            set(rd, S64(a) % S64(b)); // the sign follows the dividend, as in C99
            break;
          case D.DIF_OP_UREM:
            if (b === 0n) throw new FaultSignal(D.DTRACEFLT_DIVZERO);
            set(rd, a % b);
            break;
          case D.DIF_OP_NOT: set(rd, ~a); break;
          case D.DIF_OP_MOV: set(rd, a); break;
          case D.DIF_OP_CMP: {
            // DTrace computes the signed difference (which may wrap) and an unsigned carry; cc_v
            // is always clear.
            const r = S64(a - b);
            ccN = r < 0n; ccZ = r === 0n; ccV = false; ccC = a < b;
            break;
          }
          case D.DIF_OP_TST:
            ccN = ccV = ccC = false;
            ccZ = a === 0n;
            break;
          case D.DIF_OP_BA: pc = difLabel(instr); break;
          case D.DIF_OP_BE: if (ccZ) pc = difLabel(instr); break;
          case D.DIF_OP_BNE: if (!ccZ) pc = difLabel(instr); break;
          case D.DIF_OP_BG: if (!(ccZ || ccN !== ccV)) pc = difLabel(instr); break;
          case D.DIF_OP_BGU: if (!(ccC || ccZ)) pc = difLabel(instr); break;
          case D.DIF_OP_BGE: if (ccN === ccV) pc = difLabel(instr); break;
          case D.DIF_OP_BGEU: if (!ccC) pc = difLabel(instr); break;
          case D.DIF_OP_BL: if (ccN !== ccV) pc = difLabel(instr); break;
          case D.DIF_OP_BLU: if (ccC) pc = difLabel(instr); break;
          case D.DIF_OP_BLE: if (ccZ || ccN !== ccV) pc = difLabel(instr); break;
          case D.DIF_OP_BLEU: if (ccC || ccZ) pc = difLabel(instr); break;
          case D.DIF_OP_RET:
            rval = regs[rd]!;
            pc = text.length;
            break;
          case D.DIF_OP_NOP: break;
          case D.DIF_OP_SETX: set(rd, difo.inttab[difIndex(instr)]!); break;
          case D.DIF_OP_SETS: set(rd, strtab.base + BigInt(difIndex(instr))); break;
          case D.DIF_OP_SCMP: {
            const c = this.strcmp(a, b);
            ccN = c < 0; ccZ = c === 0; ccV = ccC = false;
            break;
          }
          case D.DIF_OP_LDGA: set(rd, this.builtinArray(r1, b)); break;
          case D.DIF_OP_LDTA:
            // There are no thread-local arrays with small ids: DTrace defines none.
            throw new FaultSignal(D.DTRACEFLT_ILLOP);
          case D.DIF_OP_LDGS: {
            const id = difIndex(instr);
            set(rd, id < D.DIF_VAR_OTHER_UBASE ? this.builtin(id) : this.loadStatic(this.globals, difo, id, D.DIFV_SCOPE_GLOBAL));
            break;
          }
          case D.DIF_OP_STGS: this.storeStatic(this.globals, difo, difIndex(instr), D.DIFV_SCOPE_GLOBAL, regs[rd]!); break;
          case D.DIF_OP_LDLS:
            // There are no built-in clause-local variables: an id below the user base reads 0.
            if (difIndex(instr) < D.DIF_VAR_OTHER_UBASE) set(rd, 0n);
            else set(rd, this.loadStatic(this.locals, difo, difIndex(instr), D.DIFV_SCOPE_LOCAL)); break;
          case D.DIF_OP_STLS: this.storeStatic(this.locals, difo, difIndex(instr), D.DIFV_SCOPE_LOCAL, regs[rd]!); break;
          case D.DIF_OP_LDTS: set(rd, this.loadDynamic(difo, difIndex(instr), D.DIFV_SCOPE_THREAD, D.DIFV_KIND_SCALAR, [])); break;
          case D.DIF_OP_STTS: this.storeDynamic(difo, difIndex(instr), D.DIFV_SCOPE_THREAD, D.DIFV_KIND_SCALAR, [], regs[rd]!); break;
          case D.DIF_OP_LDGAA: set(rd, this.loadDynamic(difo, difIndex(instr), D.DIFV_SCOPE_GLOBAL, D.DIFV_KIND_ARRAY, tuple)); break;
          case D.DIF_OP_LDTAA: set(rd, this.loadDynamic(difo, difIndex(instr), D.DIFV_SCOPE_THREAD, D.DIFV_KIND_ARRAY, tuple)); break;
          case D.DIF_OP_STGAA: this.storeDynamic(difo, difIndex(instr), D.DIFV_SCOPE_GLOBAL, D.DIFV_KIND_ARRAY, tuple, regs[rd]!); break;
          case D.DIF_OP_STTAA: this.storeDynamic(difo, difIndex(instr), D.DIFV_SCOPE_THREAD, D.DIFV_KIND_ARRAY, tuple, regs[rd]!); break;
          case D.DIF_OP_CALL:
            set(rd, callSubroutine(this, difIndex(instr), tuple.map((t) => t.value)));
            break;
          case D.DIF_OP_PUSHTR: {
            if (tuple.length === D.DIF_DTR_STACK) throw new FaultSignal(D.DTRACEFLT_TUPOFLOW);
            let size: bigint;
            if (r1 === D.DIF_TYPE_STRING) {
              // A string's size is its length plus the NUL, bounded by the size given (or strsize).
              const lim = b === 0n ? this.strsize : b > 0x10_0000n ? 0x10_0000 : Number(b);
              size = BigInt(this.strlen(regs[rd]!, lim) + 1);
            } else {
              if (b > 0x7fff_ffff_ffff_ffffn) throw new FaultSignal(D.DTRACEFLT_ILLOP);
              size = b;
            }
            tuple.push({ value: regs[rd]!, size });
            break;
          }
          case D.DIF_OP_PUSHTV:
            if (tuple.length === D.DIF_DTR_STACK) throw new FaultSignal(D.DTRACEFLT_TUPOFLOW);
            tuple.push({ value: regs[rd]!, size: 0n });
            break;
          case D.DIF_OP_POPTS: tuple.pop(); break;
          case D.DIF_OP_FLUSHTS: tuple.length = 0; break;
          case D.DIF_OP_ALLOCS: set(rd, this.allocScratch(a, 8)); break;
          case D.DIF_OP_COPYS: {
            const dest = regs[rd]!;
            if (!this.canStore(dest, b)) throw new FaultSignal(D.DTRACEFLT_BADADDR, dest);
            this.checkLoad(a, b);
            this.copy(a, dest, Number(b));
            break;
          }
          default: {
            const load = D.DIF_LOADS.get(op);
            if (load) {
              set(rd, this.load(a, load.size, load.signed, load.space));
              break;
            }
            const width = D.DIF_STORES.get(op);
            if (width !== undefined) {
              const dest = regs[rd]!;
              if (!this.canStore(dest, BigInt(width))) throw new FaultSignal(D.DTRACEFLT_BADADDR, dest);
              if (dest & BigInt(width - 1)) throw new FaultSignal(D.DTRACEFLT_BADALIGN, dest);
              this.write(dest, width, a);
              break;
            }
            throw new FaultSignal(D.DTRACEFLT_ILLOP);
          }
        }
      } catch (e) {
        if (e instanceof FaultSignal) throw new DifFault(e.fault, opc * 4, e.illval);
        throw e;
      }
    }

    const result: RunResult = { value: rval, signed: S64(rval), scratchUsed: this.scratchPtr };
    if (difo.rtype.kind === D.DIF_TYPE_STRING) result.string = rval === 0n ? '' : this.readString(rval);
    return result;
  }

  /**
   * Run one clause. A fault ends the clause (and is returned, with where it happened); other
   * clauses of the same firing still run. Call newFiring() between probe firings.
   */
  runClause(ecb: DifClause, ctx: ProbeContext = {}): ClauseResult {
    const out: ClauseResult = { fired: false, actions: ecb.actions.map(() => undefined) };
    this.scratchPtr = 0;
    this.scratch.bytes.fill(0);
    try {
      if (ecb.predicate && this.run(ecb.predicate, ctx, true).value === 0n) return out;
    } catch (e) {
      if (e instanceof DifFault) return { ...out, fault: { where: 'predicate', fault: e } };
      throw e;
    }
    out.fired = true;
    // As in DTrace, scratch memory (alloca()) lasts for the whole clause: its actions share it.
    for (const [i, action] of ecb.actions.entries()) {
      if (!action.difo) continue;
      try {
        out.actions[i] = this.run(action.difo, ctx, true);
      } catch (e) {
        if (e instanceof DifFault) return { ...out, fault: { where: i + 1, fault: e } };
        throw e;
      }
    }
    return out;
  }

  // ----- memory access (also used by the subroutines)

  /** The string at addr, up to strsize bytes or the NUL. */
  readString(addr: bigint, limit = this.strsize): string {
    return Buffer.from(this.readStringBytes(addr, limit)).toString('utf8');
  }

  readStringBytes(addr: bigint, limit = this.strsize): Uint8Array {
    const n = this.strlen(addr, limit);
    return this.readBytes(addr, n);
  }

  /** Length of the string at addr, at most `limit`; faults on an unmapped byte before the end. */
  strlen(addr: bigint, limit = this.strsize): number {
    let n = 0;
    while (n < limit && this.byte(addr + BigInt(n)) !== 0) n++;
    return n;
  }

  /** One byte of DTrace-readable memory (kernel or DTrace-owned), or a BADADDR fault. */
  byte(addr: bigint): number {
    const a = U64(addr);
    const r = this.memory.find(a);
    if (!r || r.kind === 'user') throw new FaultSignal(D.DTRACEFLT_BADADDR, a);
    return r.bytes[Number(a - r.base)]!;
  }

  readBytes(addr: bigint, size: number): Uint8Array {
    const out = new Uint8Array(size);
    for (let i = 0; i < size; i++) out[i] = this.byte(addr + BigInt(i));
    return out;
  }

  /** One byte of the traced process's memory, or a BADADDR fault. */
  userByte(addr: bigint): number {
    const a = U64(addr);
    const r = this.memory.find(a);
    if (!r || r.kind !== 'user') throw new FaultSignal(D.DTRACEFLT_BADADDR, a);
    return r.bytes[Number(a - r.base)]!;
  }

  load(addr: bigint, size: number, signed: boolean, space: 'kernel' | 'restricted' | 'user'): bigint {
    const a = U64(addr);
    if (space === 'restricted') this.checkLoad(a, BigInt(size));
    if (space !== 'user' && a & BigInt(size - 1)) throw new FaultSignal(D.DTRACEFLT_BADALIGN, a);
    let v = 0n;
    for (let i = 0; i < size; i++) {
      const byte = space === 'user' ? this.userByte(a + BigInt(i)) : this.byte(a + BigInt(i));
      v |= BigInt(byte) << BigInt(8 * i); // little-endian, as x86
    }
    return signed ? U64(BigInt.asIntN(size * 8, v)) : v;
  }

  write(addr: bigint, size: number, value: bigint): void {
    for (let i = 0; i < size; i++) this.writeByte(addr + BigInt(i), Number((value >> BigInt(8 * i)) & 0xffn));
  }

  writeByte(addr: bigint, v: number): void {
    const a = U64(addr);
    const r = this.memory.find(a);
    if (!r || !r.writable) throw new FaultSignal(D.DTRACEFLT_BADADDR, a);
    r.bytes[Number(a - r.base)] = v;
  }

  copy(src: bigint, dest: bigint, size: number): void {
    const bytes = this.readBytes(src, size);
    for (let i = 0; i < size; i++) this.writeByte(dest + BigInt(i), bytes[i]!);
  }

  /** dtrace_canstore: scratch and variable storage only. */
  canStore(addr: bigint, size: bigint): boolean {
    const r = this.memory.find(U64(addr), Number(size > 0n ? size : 1n));
    return r !== undefined && r.writable && size <= BigInt(r.bytes.length);
  }

  /** dtrace_canload: anything when kernel-privileged, else only DTrace-owned memory (KPRIV). */
  checkLoad(addr: bigint, size: bigint): void {
    if (this.kernelAccess) return;
    const r = this.memory.find(U64(addr), Number(size > 0n ? size : 1n));
    if (!r || r.kind === 'kernel' || r.kind === 'user') throw new FaultSignal(D.DTRACEFLT_KPRIV, U64(addr));
  }

  /** Allocate scratch, aligned; NOSCRATCH when it does not fit. Returns the address. */
  allocScratch(size: bigint, align: number): bigint {
    const start = Math.ceil(this.scratchPtr / align) * align;
    const total = BigInt(start - this.scratchPtr) + size;
    if (size < 0n || this.scratchPtr + Number(total) > this.scratchSize || total > BigInt(this.scratchSize)) {
      throw new FaultSignal(D.DTRACEFLT_NOSCRATCH);
    }
    this.scratch.bytes.fill(0, this.scratchPtr, this.scratchPtr + Number(total));
    this.scratchPtr += Number(total);
    return this.scratch.base + BigInt(start);
  }

  /** The next free scratch byte, after checking that `size` bytes fit (DTRACE_INSCRATCH). */
  scratchFor(size: number): bigint {
    if (this.scratchPtr + size > this.scratchSize) throw new FaultSignal(D.DTRACEFLT_NOSCRATCH);
    return this.scratch.base + BigInt(this.scratchPtr);
  }

  /** Write a string (NUL-terminated) at the scratch pointer and advance it by `advance` bytes. */
  scratchString(bytes: Uint8Array, advance: number): bigint {
    const addr = this.scratchFor(advance);
    const off = this.scratchPtr;
    this.scratch.bytes.set(bytes.subarray(0, advance - 1), off);
    this.scratch.bytes[off + Math.min(bytes.length, advance - 1)] = 0;
    this.scratchPtr += advance;
    return addr;
  }

  /** String comparison as dtrace_strncmp (unsigned bytes), NULL reading as an empty string. */
  strcmp(s1: bigint, s2: bigint): number {
    if (s1 === s2) return 0;
    for (let i = 0; i < this.strsize; i++) {
      const c1 = s1 === 0n ? 0 : this.byte(s1 + BigInt(i));
      const c2 = s2 === 0n ? 0 : this.byte(s2 + BigInt(i));
      if (c1 !== c2) return c1 - c2;
      if (c1 === 0) break;
    }
    return 0;
  }

  // ----- variables

  private varType(difo: Difo, id: number, scope: number, kind: number): DifType | undefined {
    return difo.vartab.find((v: DifVar) => v.id === id && v.scope === scope && v.kind === kind)?.type;
  }

  private static byRef(t: DifType | undefined): boolean {
    return t !== undefined && (t.flags & D.DIF_TF_BYREF) !== 0;
  }

  private newStorage(size: number): Region {
    const region = this.memory.map(this.nextVariable, new Uint8Array(size), 'variable', true);
    this.nextVariable += REGION_STRIDE;
    return region;
  }

  private loadStatic(table: Map<number, StaticVar>, difo: Difo, id: number, scope: number): bigint {
    const t = this.varType(difo, id, scope, D.DIFV_KIND_SCALAR);
    let v = table.get(id);
    if (!DifMachine.byRef(t)) return v?.value ?? 0n;
    if (!v?.region) {
      // Static storage starts zeroed: an empty string, not NULL.
      v = { value: 0n, region: this.newStorage(8 + t!.size) };
      table.set(id, v);
    }
    if (v.region!.bytes[0] === 0xff) return 0n; // the NULL marker
    return v.region!.base + 8n;
  }

  private storeStatic(table: Map<number, StaticVar>, difo: Difo, id: number, scope: number, value: bigint): void {
    const t = this.varType(difo, id, scope, D.DIFV_KIND_SCALAR);
    if (!DifMachine.byRef(t)) {
      table.set(id, { value });
      return;
    }
    let v = table.get(id);
    if (!v?.region) {
      v = { value: 0n, region: this.newStorage(8 + t!.size) };
      table.set(id, v);
    }
    const region = v.region!;
    if (value === 0n) {
      region.bytes[0] = 0xff;
      return;
    }
    const data = this.byRefData(value, t!);
    region.bytes[0] = 0;
    region.bytes.fill(0, 8);
    region.bytes.set(data, 8);
  }

  /** The bytes a by-reference store copies: a string up to its NUL, else the type's size. */
  private byRefData(addr: bigint, t: DifType): Uint8Array {
    this.checkLoad(addr, BigInt(t.size));
    if (t.kind === D.DIF_TYPE_STRING) return this.readStringBytes(addr, Math.max(0, t.size - 1));
    return this.readBytes(addr, t.size);
  }

  /** The key of a dynamic variable: tuple entries (by value or by bytes), the id, the thread. */
  private dynKey(id: number, scope: number, kind: number, tuple: TupleEntry[]): string {
    const parts = tuple.map((e) =>
      e.size === 0n ? `v${e.value}` : `b${Buffer.from(this.readBytes(e.value, Number(e.size))).toString('hex')}`,
    );
    parts.push(`${kind === D.DIFV_KIND_ARRAY ? 'a' : 's'}${id}`);
    if (scope === D.DIFV_SCOPE_THREAD) parts.push(`t${this.ctx.tid ?? 0n}`);
    return `${scope === D.DIFV_SCOPE_THREAD ? 'T' : 'G'}:${parts.join(',')}`;
  }

  private loadDynamic(difo: Difo, id: number, scope: number, kind: number, tuple: TupleEntry[]): bigint {
    const t = this.varType(difo, id, scope, kind);
    const key = this.dynKey(id, scope, kind, tuple);
    let v = this.dynvars.get(key);
    if (!v && DifMachine.byRef(t) && t!.kind !== D.DIF_TYPE_STRING && kind === D.DIFV_KIND_ARRAY) {
      // A struct, union or array element is faulted in, zero-filled, as DTrace's compiler does
      // after such a load (dt_cg_array_op); the kernel's translation does the same.
      if (this.dynvars.size >= this.dynvarLimit) {
        this.dynvarDrops++;
        return 0n;
      }
      const region = this.newStorage(Math.max(8, t!.size));
      this.dynvars.set(key, (v = { value: region.base, region }));
    }
    if (!v) return 0n;
    return DifMachine.byRef(t) ? v.region!.base : v.value;
  }

  private storeDynamic(difo: Difo, id: number, scope: number, kind: number, tuple: TupleEntry[], value: bigint): void {
    const t = this.varType(difo, id, scope, kind);
    const key = this.dynKey(id, scope, kind, tuple);
    const old = this.dynvars.get(key);
    if (value === 0n) {
      // Storing zero (or NULL) deletes a dynamic variable.
      if (old?.region) this.memory.unmap(old.region);
      this.dynvars.delete(key);
      return;
    }
    if (!old && this.dynvars.size >= this.dynvarLimit) {
      // No space: the store is dropped, which is not a fault.
      this.dynvarDrops++;
      return;
    }
    if (!DifMachine.byRef(t)) {
      this.dynvars.set(key, { value });
      return;
    }
    const data = this.byRefData(value, t!);
    const region = old?.region ?? this.newStorage(Math.max(8, t!.size));
    region.bytes.fill(0);
    region.bytes.set(data);
    this.dynvars.set(key, { value: region.base, region });
  }

  // ----- built-in variables

  private probeString(s: string | undefined): bigint {
    const bytes = Buffer.from(s ?? '', 'utf8');
    if (!this.probeRegion) {
      this.probeRegion = this.memory.map(PROBE_BASE, new Uint8Array(4096), 'probe');
      this.probeUsed = 0;
    }
    const region = this.probeRegion;
    if (this.probeUsed + bytes.length + 1 > region.bytes.length) throw new FaultSignal(D.DTRACEFLT_NOSCRATCH);
    const off = this.probeUsed;
    region.bytes.set(bytes, off);
    region.bytes[off + bytes.length] = 0;
    this.probeUsed += bytes.length + 1;
    return region.base + BigInt(off);
  }

  private builtinArray(id: number, index: bigint): bigint {
    const c = this.ctx;
    switch (id) {
      case D.DIF_VAR_ARGS: return index < 64n ? c.args?.[Number(index)] ?? 0n : 0n;
      case D.DIF_VAR_REGS: return index < 64n ? c.regs?.[Number(index)] ?? 0n : 0n;
      case D.DIF_VAR_UREGS: return index < 64n ? c.uregs?.[Number(index)] ?? 0n : 0n;
      default: throw new FaultSignal(D.DTRACEFLT_ILLOP);
    }
  }

  private builtin(id: number): bigint {
    const c = this.ctx;
    if (id >= D.DIF_VAR_ARG0 && id <= D.DIF_VAR_ARG9) return U64(c.args?.[id - D.DIF_VAR_ARG0] ?? 0n);
    switch (id) {
      case D.DIF_VAR_CURTHREAD: return c.curthread ?? 0n;
      case D.DIF_VAR_TIMESTAMP: return c.timestamp ?? 0n;
      case D.DIF_VAR_VTIMESTAMP: return c.vtimestamp ?? 0n;
      case D.DIF_VAR_WALLTIMESTAMP: return c.walltimestamp ?? 0n;
      case D.DIF_VAR_IPL: return c.ipl ?? 0n;
      case D.DIF_VAR_EPID: return c.epid ?? 0n;
      case D.DIF_VAR_ID: return c.id ?? 0n;
      case D.DIF_VAR_STACKDEPTH: return c.stackdepth ?? 0n;
      case D.DIF_VAR_USTACKDEPTH: return c.ustackdepth ?? 0n;
      case D.DIF_VAR_CALLER: return c.caller ?? 0n;
      case D.DIF_VAR_UCALLER: return c.ucaller ?? 0n;
      case D.DIF_VAR_PID: return c.pid ?? 0n;
      case D.DIF_VAR_PPID: return c.ppid ?? 0n;
      case D.DIF_VAR_TID: return c.tid ?? 0n;
      case D.DIF_VAR_UID: return c.uid ?? 0n;
      case D.DIF_VAR_GID: return c.gid ?? 0n;
      case D.DIF_VAR_ERRNO: return U64(c.errno ?? 0n);
      case D.DIF_VAR_CURCPU: return c.curcpu ?? 0n;
      case D.DIF_VAR_EXECNAME: return this.probeString(c.execname);
      case D.DIF_VAR_ZONENAME: return this.probeString(c.zonename ?? 'global');
      case D.DIF_VAR_PROBEPROV: return this.probeString(c.probeprov);
      case D.DIF_VAR_PROBEINSTANCE: return this.probeString(c.probeinstance ?? 'host');
      case D.DIF_VAR_PROBEMOD: return this.probeString(c.probemod);
      case D.DIF_VAR_PROBEFUNC: return this.probeString(c.probefunc);
      case D.DIF_VAR_PROBENAME: return this.probeString(c.probename);
      default: throw new FaultSignal(D.DTRACEFLT_ILLOP);
    }
  }

  // ----- helpers

  private strtabRegion(difo: Difo): Region {
    let r = this.strtabs.get(difo);
    if (!r) {
      // One byte more than the table so that an offset at its end still reads a NUL.
      const bytes = new Uint8Array(difo.strtab.length + 1);
      bytes.set(difo.strtab);
      r = this.memory.map(this.nextStrtab, bytes, 'strtab');
      this.nextStrtab += REGION_STRIDE;
      this.strtabs.set(difo, r);
    }
    return r;
  }

  private nextRandom(): bigint {
    // xorshift64: deterministic, so that tests are repeatable.
    let x = this.randState;
    x ^= U64(x << 13n);
    x ^= x >> 7n;
    x ^= U64(x << 17n);
    this.randState = x;
    return x;
  }
}

function toBytes(b: Uint8Array | string): Uint8Array {
  if (typeof b !== 'string') return b;
  const s = Buffer.from(b, 'utf8');
  const out = new Uint8Array(s.length + 1);
  out.set(s);
  return out;
}
