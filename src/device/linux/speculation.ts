// Speculative tracing on the Linux device: speculation(), speculate(), commit() and discard().
//
// DTrace keeps a speculation's data in per-CPU speculative buffers and copies it to the principal
// buffer on commit(). Here the data goes to the ordinary perf buffers straight away, tagged with
// the speculation; the consumer holds tagged records until the commit() or discard() marker for
// that speculation arrives, then prints or forgets them (consumer/speculation.ts).
//
// Kernel state:
// - `dt_spec` (array, one u64 per speculation): state in bits 0-7, the CPU of an ACTIVEONE
//   speculation in bits 8-31, and a generation in bits 32-63 that speculation() advances each
//   time it claims the speculation, so records of successive uses of one id never mix.
//   Transitions follow DTrace's (dtrace_speculation, _buffer, _commit, _discard), made with
//   BPF_ATOMIC compare-and-exchange. The two states DTrace's cleaner resolves (COMMITTINGMANY,
//   DISCARDING) are returned to INACTIVE by the consumer once it has seen their marker.
// - `dt_specbuf` (per-CPU array): for each speculation, the generation and bytes it has used on
//   this CPU (bounded by specsize, as each CPU's speculative buffer is); then the counts of failed
//   speculation() calls: busy, unavailable.
//
// The u32 after the epid in a record header (0 for ordinary records) carries the tag:
// kind << 28 | (generation & 0xfff) << 16 | speculation id.

import * as D from '../../dif/constants.js';
import { RECORD_HEADER_SIZE, SPEC_TAG, specTag } from '../../abi/records.js';
import {
  ALU, BPF_ATOMIC, BPF_DW, BPF_F_CURRENT_CPU, BPF_MAP_TYPE, BPF_STX, type BpfAsm, FP, HELPER, JMP, type Label, R0, R1, R2, R3, R4,
  R5, R6, R7, R8, R9, u32,
} from './bpf-asm.js';
import { type EcbPlan, type ProbeTranslator, TMP, TranslateError, roundUp } from './translate.js';
import { native } from '../native.js';
import { DeviceError } from './device-error.js';

/** States of a speculation (dtrace_speculation_state_t, without COMMITTING: see commit()). */
export const SPEC_STATE = { INACTIVE: 0, ACTIVE: 1, ACTIVEONE: 2, ACTIVEMANY: 3, COMMITTINGMANY: 4, DISCARDING: 5 } as const;

/** The most speculations speculation()'s loop can visit in a program the verifier accepts. */
export const MAX_NSPEC = 1024;

/** What the translator needs: the maps and the options. */
export interface SpeculationEnv {
  statesFd: number;
  bufFd: number;
  nspec: number;
  specsize: number;
}

/** Bytes of one entry of dt_specbuf: u64 generation, u64 bytes (busy and unavailable for the last). */
export const SPECBUF_ENTRY = 16;

/** Does the program use speculations at all? */
export function usesSpeculations(ecbs: { predicate: { insns: Uint32Array } | null; actions: { kind: number; difo: { insns: Uint32Array } | null }[] }[]): boolean {
  return ecbs.some((e) => e.actions.some((a) => D.isSpeculativeAction(a.kind)) ||
    [e.predicate, ...e.actions.map((a) => a.difo)].some((d) => d?.insns.some(
      (i) => i >>> 24 === D.DIF_OP_CALL && ((i >>> 8) & 0xffff) === D.DIF_SUBR_SPECULATION)));
}

// DTrace reports faults outside DIF code with no DIF offset (-1); fault() stores pc * 4.
const NO_DIF_OFFSET = -1 / 4;

const BPF_CMPXCHG = 0xf0 | 0x01; // with BPF_FETCH: r0 receives the old value

/** r0 == *(u64 *)(ptr + 0) ? *ptr = val : nothing; r0 = the old value either way. */
function cmpxchg(a: BpfAsm, ptr: number, val: number): void {
  a.raw(BPF_STX | BPF_ATOMIC | BPF_DW, ptr, val, 0, BPF_CMPXCHG);
}

function env(t: ProbeTranslator): SpeculationEnv {
  const s = t.env.spec;
  if (!s) throw new TranslateError('speculations need their maps', t.ecbIndex, t.actionIndex);
  return s;
}

/** R0 = lookup(fd, key) where the key is in register `keyReg` (u32) or an immediate. */
function lookup(a: BpfAsm, fd: number, key: { reg: number } | { imm: number }): void {
  if ('reg' in key) a.stx(4, FP, TMP, key.reg);
  else a.st(4, FP, TMP, key.imm);
  a.ldMap(R1, fd);
  a.mov(R2, FP);
  a.aluImm(ALU.ADD, R2, TMP);
  a.call(HELPER.map_lookup_elem);
}

/** R3 = the generation bits of state word R1 with state `state` (and no CPU). */
function sameGeneration(a: BpfAsm, state: number): void {
  a.mov(R3, R1);
  a.aluImm(ALU.RSH, R3, 32);
  a.aluImm(ALU.LSH, R3, 32);
  if (state) a.aluImm(ALU.OR, R3, state);
}

/** Per-ECB scratch: the CPU id, the generation, the marker tags of commit()/discard(). */
interface EcbScratch {
  ecb: number;
  cpu: number;
  gen: number;
  record: number; // 16 bytes for a header-only record
  busy: number; // speculation(): a busy speculation was seen
  markers: number[];
}
const scratchByTranslator = new WeakMap<ProbeTranslator, EcbScratch>();

function ecbScratch(t: ProbeTranslator): EcbScratch {
  let s = scratchByTranslator.get(t);
  if (!s || s.ecb !== t.ecbIndex) {
    s = { ecb: t.ecbIndex, cpu: t.scratch(8), gen: t.scratch(8), record: t.scratch(RECORD_HEADER_SIZE), busy: t.scratch(8), markers: [] };
    scratchByTranslator.set(t, s);
  }
  return s;
}

/** Check the id in R0: 0 jumps to `none`, above nspec faults; leaves the index (id - 1) in R6. */
function speculationIndex(t: ProbeTranslator, none: Label, next: Label): void {
  const a = t.a, { nspec } = env(t);
  a.mov(R6, R0);
  a.jmpImm(JMP.JEQ, R6, 0, none);
  const ok = a.label('spec.id.ok');
  a.jmpImm(JMP.JLE, R6, nspec, ok);
  t.fault(D.DTRACEFLT_ILLOP, NO_DIF_OFFSET, undefined, next);
  a.place(ok);
  a.aluImm(ALU.SUB, R6, 1);
}

/** Look up the state word of speculation R6 (R7 = its address) and this CPU's id; else `none`. */
function stateAndCpu(t: ProbeTranslator, s: EcbScratch, none: Label): void {
  const a = t.a, { statesFd } = env(t);
  lookup(a, statesFd, { reg: R6 });
  a.jmpImm(JMP.JEQ, R0, 0, none);
  a.mov(R7, R0);
  a.call(HELPER.get_smp_processor_id);
  a.stx(8, R8, s.cpu, R0);
}

/** Jump to `mine` when the ACTIVEONE word in R1 names this CPU (uses R3, R4). */
function onThisCpu(a: BpfAsm, s: EcbScratch, mine: Label): void {
  a.mov(R3, R1);
  a.aluImm(ALU.RSH, R3, 8);
  a.aluImm(ALU.AND, R3, 0xffffff);
  a.ldx(8, R4, R8, s.cpu);
  a.jmp(JMP.JEQ, R3, R4, mine);
}

const ATTEMPTS = 3; // compare-and-exchange retries when another CPU changes the state meanwhile

/** Iterations of speculation()'s loop the verifier accepts in one program (8192 pending jumps). */
const MAX_LOOP_VISITS = 1500;
const loopVisits = new WeakMap<ProbeTranslator, number>();

/** speculation(): claim an inactive speculation; its id, or 0 (counted busy or unavailable). */
export function emitSpeculationSubr(t: ProbeTranslator, rd: number): void {
  const a = t.a, { statesFd, bufFd, nspec } = env(t);
  // The verifier walks every iteration of every call's loop and keeps a bounded number of
  // branches pending: refuse plainly rather than let it fail obscurely.
  const visits = (loopVisits.get(t) ?? 0) + nspec;
  loopVisits.set(t, visits);
  if (visits > MAX_LOOP_VISITS)
    throw new TranslateError(`too many speculation() calls with nspec=${nspec} in one probe's program`, t.ecbIndex, t.actionIndex);
  // A loop over the speculations (the verifier walks its nspec iterations); whether one was
  // busy (being committed or discarded) is kept in memory, where the verifier does not split
  // paths on it.
  const busy = ecbScratch(t).busy;
  const loop = a.label('spec.loop'), nexti = a.label('spec.next'), claim = a.label('spec.claim');
  const none = a.label('spec.none'), done = a.label('spec.claimed');
  a.st(8, R8, busy, 0);
  a.movImm(R6, 0);
  a.place(loop);
  a.jmpImm(JMP.JGE, R6, nspec, none);
  lookup(a, statesFd, { reg: R6 });
  a.jmpImm(JMP.JEQ, R0, 0, nexti);
  a.mov(R4, R0);
  a.ldx(8, R1, R4, 0);
  a.mov(R2, R1);
  a.aluImm(ALU.AND, R2, 0xff);
  a.jmpImm(JMP.JEQ, R2, SPEC_STATE.INACTIVE, claim);
  a.jmpImm(JMP.JLT, R2, SPEC_STATE.COMMITTINGMANY, nexti);
  a.st(8, R8, busy, 1);
  a.ja(nexti);
  a.place(claim);
  a.mov(R3, R1);
  a.aluImm(ALU.RSH, R3, 32);
  a.aluImm(ALU.ADD, R3, 1);
  a.aluImm(ALU.LSH, R3, 32);
  a.aluImm(ALU.OR, R3, SPEC_STATE.ACTIVE);
  a.mov(R0, R1);
  cmpxchg(a, R4, R3);
  a.jmp(JMP.JNE, R0, R1, nexti);
  a.mov(R1, R6);
  a.aluImm(ALU.ADD, R1, 1);
  a.ja(done);
  a.place(nexti);
  a.aluImm(ALU.ADD, R6, 1);
  a.ja(loop);

  // None: count the failure in this CPU's counters (busy first, then unavailable).
  a.place(none);
  const zero = a.label('spec.zero');
  lookup(a, bufFd, { imm: nspec });
  a.jmpImm(JMP.JEQ, R0, 0, zero);
  const count = a.label('spec.count');
  a.ldx(8, R1, R8, busy);
  a.jmpImm(JMP.JNE, R1, 0, count);
  a.aluImm(ALU.ADD, R0, 8); // unavailable
  a.place(count);
  a.ldx(8, R1, R0, 0);
  a.aluImm(ALU.ADD, R1, 1);
  a.stx(8, R0, 0, R1);
  a.place(zero);
  a.movImm(R1, 0);
  a.place(done);
  t.putReg(R1, rd);
}

/**
 * A speculative action whose DIF value (the id) is in R0: speculate() tags the clause's record,
 * commit() and discard() change the state and leave a marker emitted after the clause's record.
 */
export function emitSpeculativeAction(t: ProbeTranslator, plan: EcbPlan, kind: number, next: Label): void {
  if (kind === D.DTRACEACT_SPECULATE) return speculate(t, plan, next);
  return commitOrDiscard(t, kind === D.DTRACEACT_COMMIT, next);
}

function speculate(t: ProbeTranslator, plan: EcbPlan, next: Label): void {
  const a = t.a, mem = t.env.mem, { bufFd, specsize } = env(t);
  const s = ecbScratch(t);
  const tagOff = mem.buf + 4;
  const suppress = a.label('spec.suppress'), end = a.label('spec.end'), ok = a.label('spec.ok');
  speculationIndex(t, suppress, next);
  stateAndCpu(t, s, suppress);
  for (let i = 0; i < ATTEMPTS; i++) {
    const toOne = a.label('spec.one'), cas = a.label('spec.cas'), retry = a.label('spec.retry');
    a.ldx(8, R1, R7, 0);
    a.mov(R2, R1);
    a.aluImm(ALU.AND, R2, 0xff);
    a.jmpImm(JMP.JEQ, R2, SPEC_STATE.ACTIVEMANY, ok);
    a.jmpImm(JMP.JEQ, R2, SPEC_STATE.ACTIVE, toOne);
    a.jmpImm(JMP.JNE, R2, SPEC_STATE.ACTIVEONE, suppress); // inactive, committing or discarding
    onThisCpu(a, s, ok);
    sameGeneration(a, SPEC_STATE.ACTIVEMANY); // another CPU speculates on it too
    a.ja(cas);
    a.place(toOne);
    sameGeneration(a, SPEC_STATE.ACTIVEONE);
    a.ldx(8, R4, R8, s.cpu);
    a.aluImm(ALU.LSH, R4, 8);
    a.alu(ALU.OR, R3, R4);
    a.place(cas);
    a.mov(R0, R1);
    cmpxchg(a, R7, R3);
    a.jmp(JMP.JEQ, R0, R1, ok);
    a.place(retry);
  }
  a.ja(suppress);

  // R1: the state word; the generation is its upper half.
  a.place(ok);
  a.aluImm(ALU.RSH, R1, 32);
  a.stx(8, R8, s.gen, R1);
  lookup(a, bufFd, { reg: R6 });
  a.jmpImm(JMP.JEQ, R0, 0, suppress);
  const same = a.label('spec.samegen'), drop = a.label('spec.drop');
  a.ldx(8, R1, R0, 0);
  a.ldx(8, R2, R8, s.gen);
  a.jmp(JMP.JEQ, R1, R2, same);
  a.stx(8, R0, 0, R2); // first use of this generation on this CPU: its buffer is empty
  a.st(8, R0, 8, 0);
  a.place(same);
  a.ldx(8, R1, R0, 8);
  a.aluImm(ALU.ADD, R1, RECORD_HEADER_SIZE + roundUp(plan.dataSize, 8));
  a.ld64(R2, BigInt(specsize));
  a.jmp(JMP.JGT, R1, R2, drop);
  a.stx(8, R0, 8, R1);
  tag(a, s, SPEC_TAG.DATA);
  a.stx(4, R8, tagOff, R1);
  a.ja(end);

  // Too big for what is left of specsize: a speculative drop, which the consumer counts if the
  // speculation is committed.
  a.place(drop);
  tag(a, s, SPEC_TAG.DROP);
  headerOnlyRecord(t, s, R1);
  a.place(suppress);
  a.st(4, R8, tagOff, SPEC_TAG.SUPPRESSED << 28);
  a.place(end);
}

/** R1 = the tag of `kind` for speculation index R6 and the generation in scratch. */
function tag(a: BpfAsm, s: EcbScratch, kind: number | { reg: number }): void {
  a.ldx(8, R1, R8, s.gen);
  a.aluImm(ALU.AND, R1, 0xfff);
  a.aluImm(ALU.LSH, R1, 16);
  a.mov(R2, R6);
  a.aluImm(ALU.ADD, R2, 1);
  a.alu(ALU.OR, R1, R2);
  if (typeof kind === 'number') a.movImm(R2, kind);
  else a.mov(R2, kind.reg);
  a.aluImm(ALU.LSH, R2, 28);
  a.alu(ALU.OR, R1, R2);
}

/** Emit a record of the clause's header with tag R1 (epid and timestamp from the record). */
function headerOnlyRecord(t: ProbeTranslator, s: EcbScratch, tagReg: number): void {
  const a = t.a, mem = t.env.mem;
  a.stx(4, R8, s.record + 4, tagReg);
  a.ldx(4, R2, R8, mem.buf);
  a.stx(4, R8, s.record, R2);
  a.ldx(8, R2, R8, mem.buf + 8);
  a.stx(8, R8, s.record + 8, R2);
  t.output(s.record, RECORD_HEADER_SIZE);
}

function commitOrDiscard(t: ProbeTranslator, commit: boolean, next: Label): void {
  const a = t.a;
  const s = ecbScratch(t);
  const slot = t.scratch(8);
  s.markers.push(slot);
  const end = a.label('spec.end'), ok = a.label('spec.ok');
  a.st(8, R8, slot, 0);
  speculationIndex(t, end, next);
  stateAndCpu(t, s, end);
  const clean = commit ? SPEC_TAG.COMMIT_CLEAN : SPEC_TAG.DISCARD_CLEAN;
  for (let i = 0; i < ATTEMPTS; i++) {
    const toClean = a.label('spec.clean'), toInactive = a.label('spec.inactive'), cas = a.label('spec.cas');
    a.ldx(8, R1, R7, 0);
    a.mov(R2, R1);
    a.aluImm(ALU.AND, R2, 0xff);
    // As in illumos (dtrace_speculation_commit, _discard): a speculation with data on this CPU
    // alone, or committed with none anywhere, is INACTIVE again at once -- its records, and
    // its marker after them, are all in this CPU's buffer, and the generation keeps them apart
    // from the next use's. Others stay busy until the consumer has acted on their marker (the
    // cleaner). DTrace for Linux keeps every one busy; the public suite (speculation/
    // tst.SingleCPU) expects illumos's.
    if (commit) a.jmpImm(JMP.JEQ, R2, SPEC_STATE.ACTIVE, toInactive);
    else a.jmpImm(JMP.JEQ, R2, SPEC_STATE.ACTIVE, toClean);
    a.jmpImm(JMP.JEQ, R2, SPEC_STATE.ACTIVEMANY, toClean);
    a.jmpImm(JMP.JNE, R2, SPEC_STATE.ACTIVEONE, end); // inactive, or already committing/discarding
    onThisCpu(a, s, toInactive);
    a.place(toClean);
    sameGeneration(a, commit ? SPEC_STATE.COMMITTINGMANY : SPEC_STATE.DISCARDING);
    a.movImm(R5, clean);
    a.ja(cas);
    a.place(toInactive);
    sameGeneration(a, SPEC_STATE.INACTIVE);
    a.movImm(R5, commit ? SPEC_TAG.COMMIT : SPEC_TAG.DISCARD);
    a.place(cas);
    a.mov(R0, R1);
    cmpxchg(a, R7, R3);
    a.jmp(JMP.JEQ, R0, R1, ok);
  }
  a.ja(end);
  a.place(ok);
  a.aluImm(ALU.RSH, R1, 32);
  a.stx(8, R8, s.gen, R1);
  tag(a, s, { reg: R5 });
  a.stx(4, R8, slot, R1);
  a.place(end);
}

/** Before the clause's record is written: skip it when speculate() suppressed it. */
export function emitSuppressionCheck(t: ProbeTranslator, plan: EcbPlan): Label | undefined {
  if (!plan.desc.actions.some((x) => x.kind === D.DTRACEACT_SPECULATE)) return undefined;
  const a = t.a, skip = a.label('spec.skip');
  a.ldx(4, R1, R8, t.env.mem.buf + 4);
  a.aluImm(ALU.RSH, R1, 28);
  a.jmpImm(JMP.JEQ, R1, SPEC_TAG.SUPPRESSED, skip);
  return skip;
}

/** After the clause's record: the markers of its commit() and discard() actions, in order. */
export function emitMarkers(t: ProbeTranslator): void {
  const s = scratchByTranslator.get(t);
  if (!s || s.ecb !== t.ecbIndex) return;
  const a = t.a;
  for (const slot of s.markers) {
    const skip = a.label('spec.nomarker');
    a.ldx(4, R1, R8, slot);
    a.jmpImm(JMP.JEQ, R1, 0, skip);
    headerOnlyRecord(t, s, R1);
    a.place(skip);
  }
}

/** The speculation maps of one enabling, and what the consumer asks of them. */
export class SpeculationMaps {
  private seen = { busy: 0, unavailable: 0 };

  private constructor(readonly env: SpeculationEnv, private ncpu: number) {}

  static create(
    createMap: (o: { type: number; keySize: number; valueSize: number; maxEntries: number; name: string }) => number,
    nspec: number, specsize: number, ncpu: number,
  ): SpeculationMaps {
    if (!Number.isInteger(nspec) || nspec < 1 || nspec > MAX_NSPEC)
      throw new DeviceError(`nspec ${nspec} is not supported by the Linux device (1 to ${MAX_NSPEC})`);
    const statesFd = createMap({ type: BPF_MAP_TYPE.ARRAY, keySize: 4, valueSize: 8, maxEntries: nspec, name: 'dt_spec' });
    const bufFd = createMap({ type: BPF_MAP_TYPE.PERCPU_ARRAY, keySize: 4, valueSize: SPECBUF_ENTRY, maxEntries: nspec + 1, name: 'dt_specbuf' });
    return new SpeculationMaps({ statesFd, bufFd, nspec, specsize }, ncpu);
  }

  /**
   * The consumer has acted on the marker of a speculation DTrace's cleaner would finish
   * (committed on several CPUs, or discarded): make it INACTIVE again if it still is in that
   * generation. No program changes a speculation in those states, so this write races with none.
   */
  clean(id: number, gen: number): void {
    if (id < 1 || id > this.env.nspec) return;
    const key = u32(id - 1), value = Buffer.alloc(8);
    if (!native.mapLookup(this.env.statesFd, key, value)) return;
    const word = value.readBigUInt64LE(0);
    const state = Number(word & 0xffn);
    if (state !== SPEC_STATE.COMMITTINGMANY && state !== SPEC_STATE.DISCARDING) return;
    if (Number((word >> 32n) & 0xfffn) !== gen) return;
    value.writeBigUInt64LE((word >> 32n) << 32n);
    native.mapUpdate(this.env.statesFd, key, value, 0);
  }

  /** speculation() calls that found no speculation since the last call: busy, unavailable. */
  failures(): { busy: number; unavailable: number } {
    const value = Buffer.alloc(SPECBUF_ENTRY * this.ncpu);
    if (!native.mapLookup(this.env.bufFd, u32(this.env.nspec), value)) return { busy: 0, unavailable: 0 };
    let busy = 0, unavailable = 0;
    for (let c = 0; c < this.ncpu; c++) {
      busy += Number(value.readBigUInt64LE(c * SPECBUF_ENTRY));
      unavailable += Number(value.readBigUInt64LE(c * SPECBUF_ENTRY + 8));
    }
    const fresh = { busy: busy - this.seen.busy, unavailable: unavailable - this.seen.unavailable };
    this.seen = { busy, unavailable };
    return fresh;
  }
}

