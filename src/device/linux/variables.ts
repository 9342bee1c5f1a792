// D variables in the Linux bridge: thread-locals, clause-locals and associative arrays.
//
// Design (the simplest the verifier is happy with, and DTrace's own model):
// - Every dynamic variable -- thread-local scalars, thread-local arrays, global arrays -- lives in
//   ONE BPF hash map, as DTrace keeps them all in one dynamic variable space. Its entries are
//   fixed-size like DTrace's chunks: the key is the largest key any array needs and the value is
//   8 bytes, or strsize when any dynamic variable holds strings, or the largest struct, union or
//   array one holds (held by value, as strings are). max_entries is dynvarsize divided
//   by that chunk size, so `dynvarsize` bounds the space as it does in DTrace, and a store that
//   finds the map full is a dynamic variable drop, counted in a per-CPU array the consumer reads.
// - Key: u32 (kind << 24 | scope << 16 | id), u32 0, u64 thread (tid; (cpu + 1) << 32 for the
//   idle threads, which all have tid 0; 0 for global arrays), then the tuple: integers as 8 bytes,
//   strings by value in strsize bytes. The key buffer is zeroed before it is built, so equal
//   strings give equal keys.
// - Assigning 0 deletes the entry; a missing entry reads as 0, for strings too (a NULL string,
//   which comparisons take as "", as DTrace does). Strings are read by reference: the address of
//   the value inside the map entry, as DTrace returns the address of the dynamic variable's data.
// - Clause-locals live in this CPU's scratch memory: all clauses of a probe are one BPF program
//   that runs to completion on one CPU, so every clause of a firing sees them; they are not
//   cleared between firings (DTrace leaves them undefined there too).
// The per-CPU scratch region this module uses: the key and value being built, a slot to turn map
// value pointers into scalars, then the clause-locals.

import * as D from '../../dif/constants.js';
import type { Program } from '../../dof/program.js';
import type { Difo } from '../../dif/difo.js';
import { ALU, FP, HELPER, JMP, R0, R1, R2, R3, R4, R8, type BpfAsm } from './bpf-asm.js';
import { DYNVAR_ADDR, DYNVAR_PTR, type ProbeTranslator, TranslateError, ZERO_KEY, constantAt } from './translate.js';
import { emitTid } from './context-task.js';

/** What DTrace for Linux counts for a dynamic variable element beside its keys and value. */
const DYNVAR_HEADER = 12;
const KEY_HEADER = 16;

/** How a variable's value is held: a string, a struct/union/array of `size` bytes, or 8 bytes. */
export interface ValueKind {
  string: boolean;
  /** Bytes of a struct, union or array value (read by reference, copied in by value); else 0. */
  size: number;
}

export interface VariablePlan {
  /** Dynamic variables by dynamicKey(scope, kind, id). */
  dynamic: Map<string, ValueKind>;
  /** Clause-locals by id: offset in the region and how the value is held. */
  locals: Map<number, { offset: number } & ValueKind>;
  keySize: number;
  valueSize: number;
  /** Entries that fit in dynvarsize (at least one). */
  capacity: number;
  strsize: number;
  /** Offsets inside the region, and its size. */
  key: number; // arrays' keys are built here (zeroed first)
  scalarKey: number; // thread-local scalars' keys: only the header is ever written, the rest stays 0
  value: number;
  addr: number;
  regionSize: number;
  /** The clause-locals' part of the region, [start, end): structs, unions and arrays held there
   *  may be written through their address (this->q.x = 1), as dtrace_canstore allows. */
  locals0: number;
}

/** The clause-locals' storage, as offsets in the per-CPU scratch memory; null when none is held
 *  by reference (only those can be written through an address). */
export function writableLocals(env: VariableEnv | undefined): { start: number; end: number } | null {
  if (!env || ![...env.plan.locals.values()].some((l) => l.size > 0)) return null;
  return { start: env.base + env.plan.locals0, end: env.base + env.plan.regionSize };
}

/** The dynamic variable entry holding the struct, union or array a load last read, if any: its
 *  value's bytes (0: none) -- DTrace lets D code write there through its address (self->s.x = 1). */
export function writableDynamic(env: VariableEnv | undefined): number {
  if (!env || env.mapFd < 0 || ![...env.plan.dynamic.values()].some((v) => v.size > 0 && !v.string)) return 0;
  return env.plan.valueSize;
}

/** What the translator needs at run time: the plan, the maps, and where the region is in mem. */
export interface VariableEnv {
  plan: VariablePlan;
  base: number; // offset of the region in the per-CPU scratch memory
  mapFd: number; // -1 when the program has no dynamic variables
  dropsFd: number;
}

export function dynamicKey(scope: number, kind: number, id: number): string {
  return `${scope}:${kind}:${id}`;
}

const roundUp = (n: number, to: number) => Math.ceil(n / to) * to;

function difos(program: Program): Difo[] {
  const out: Difo[] = [];
  for (const ecb of program.ecbs) {
    for (const d of [ecb.predicate, ...ecb.actions.map((a) => a.difo)]) if (d) out.push(d);
  }
  return out;
}

/** A struct key's bytes (PUSHTR of a non-string, its size the SETX before it); else undefined. */
function refKeyBytes(d: Difo, pc: number, ins: number): number | undefined {
  if ((ins >>> 24) !== D.DIF_OP_PUSHTR || ((ins >>> 16) & 0xff) === D.DIF_TYPE_STRING) return undefined;
  const size = constantAt(d, pc, (ins >>> 8) & 0xff, new Map());
  return size === undefined ? undefined : roundUp(Number(size), 8);
}

/** Lay out the program's variables from its DIF alone (variable tables and tuple pushes). */
export function planVariables(program: Program, strsize: number, dynvarsize: number): VariablePlan {
  const dynamic = new Map<string, ValueKind>();
  const localTypes = new Map<number, ValueKind>();
  const strBytes = roundUp(strsize, 8);
  let maxTuple = 0;
  // DTrace for Linux's accounting of its dynamic variable space, per element: 12 bytes, the
  // tuple's keys and the value, at their sizes (an integer key taken as an int's 4 bytes: DIF
  // does not say which integer type a key has). Measured on the reference.
  const valueBytes = new Map<string, number>();
  const tupleBytes = new Map<string, number>();
  const threadScalars = new Set<string>();
  const merge = (a: ValueKind | undefined, b: ValueKind): ValueKind =>
    ({ string: (a?.string ?? false) || b.string, size: Math.max(a?.size ?? 0, b.size) });
  for (const d of difos(program)) {
    for (const v of d.vartab) {
      const string = v.type.kind === D.DIF_TYPE_STRING;
      const kind = { string, size: !string && (v.type.flags & D.DIF_TF_BYREF) ? v.type.size : 0 };
      if (v.scope === D.DIFV_SCOPE_LOCAL) localTypes.set(v.id, merge(localTypes.get(v.id), kind));
      else if (v.scope === D.DIFV_SCOPE_THREAD || (v.kind === D.DIFV_KIND_ARRAY && v.id >= D.DIF_VAR_OTHER_UBASE)) {
        const k = dynamicKey(v.scope, v.kind, v.id);
        dynamic.set(k, merge(dynamic.get(k), kind));
        // (A string value counts as the strsize option's bytes, one less than its slot here; a
        // string key as the slot's.)
        valueBytes.set(k, Math.max(valueBytes.get(k) ?? 0, string ? strsize - 1 : v.type.size || 8));
        if (v.kind === D.DIFV_KIND_SCALAR) threadScalars.add(k);
      }
    }
    // The tuple stack at each array access, as the translator will see it.
    let tuple = 0, accounted = 0;
    const depth: number[] = [], accountedDepth: number[] = [];
    for (const [i, ins] of d.insns.entries()) {
      const op = (ins >>> 24) & 0xff;
      if (op === D.DIF_OP_PUSHTR || op === D.DIF_OP_PUSHTV) {
        const bytes = refKeyBytes(d, i, ins);
        const size = bytes ?? (op === D.DIF_OP_PUSHTR ? strBytes : 8);
        const counted = bytes ?? (op === D.DIF_OP_PUSHTR ? strsize : 4);
        depth.push(size), (tuple += size), accountedDepth.push(counted), (accounted += counted);
      } else if (op === D.DIF_OP_POPTS) (tuple -= depth.pop() ?? 0), (accounted -= accountedDepth.pop() ?? 0);
      else if (op === D.DIF_OP_FLUSHTS) (depth.length = 0), (tuple = 0), (accountedDepth.length = 0), (accounted = 0);
      else if (op === D.DIF_OP_LDGAA || op === D.DIF_OP_STGAA || op === D.DIF_OP_LDTAA || op === D.DIF_OP_STTAA) {
        maxTuple = Math.max(maxTuple, tuple);
        const thread = op === D.DIF_OP_LDTAA || op === D.DIF_OP_STTAA;
        const k = dynamicKey(thread ? D.DIFV_SCOPE_THREAD : D.DIFV_SCOPE_GLOBAL, D.DIFV_KIND_ARRAY, (ins >>> 8) & 0xffff);
        tupleBytes.set(k, Math.max(tupleBytes.get(k) ?? 0, accounted));
      }
    }
  }
  const keySize = KEY_HEADER + maxTuple;
  const values = [...dynamic.values()];
  const valueSize = Math.max(8, values.some((k) => k.string) ? strBytes : 0, ...values.map((k) => roundUp(k.size, 8)));
  // As many elements as DTrace for Linux fits in dynvarsize (the largest element bounds it). A
  // thread-local scalar counts as its value alone (three ints in 15 bytes), an array element
  // with the header and its keys (measured on the reference).
  let element = 0;
  for (const k of dynamic.keys()) {
    const header = threadScalars.has(k) ? 0 : DYNVAR_HEADER + (tupleBytes.get(k) ?? 0);
    element = Math.max(element, header + (valueBytes.get(k) ?? 8));
  }
  const capacity = Math.max(1, Math.floor(dynvarsize / Math.max(1, element)));

  let off = 0;
  const take = (n: number) => { const at = off; off += roundUp(n, 8); return at; };
  const addr = take(8);
  const key = take(dynamic.size > 0 ? keySize : 0);
  const scalarKey = take(dynamic.size > 0 ? keySize : 0);
  const value = take(dynamic.size > 0 ? valueSize : 0);
  const locals = new Map<number, { offset: number } & ValueKind>();
  const locals0 = off;
  for (const [id, kind] of [...localTypes].sort((a, b) => a[0] - b[0]))
    locals.set(id, { offset: take(kind.string ? strBytes : Math.max(8, kind.size)), ...kind });
  return { dynamic, locals, keySize, valueSize, capacity, strsize, key, scalarKey, value, addr, regionSize: off, locals0 };
}

// ------------------------------------------------------------------------------ translation

const DYNAMIC_OPS: Record<number, { scope: number; kind: number; store: boolean }> = {
  [D.DIF_OP_LDTS]: { scope: D.DIFV_SCOPE_THREAD, kind: D.DIFV_KIND_SCALAR, store: false },
  [D.DIF_OP_STTS]: { scope: D.DIFV_SCOPE_THREAD, kind: D.DIFV_KIND_SCALAR, store: true },
  [D.DIF_OP_LDGAA]: { scope: D.DIFV_SCOPE_GLOBAL, kind: D.DIFV_KIND_ARRAY, store: false },
  [D.DIF_OP_STGAA]: { scope: D.DIFV_SCOPE_GLOBAL, kind: D.DIFV_KIND_ARRAY, store: true },
  [D.DIF_OP_LDTAA]: { scope: D.DIFV_SCOPE_THREAD, kind: D.DIFV_KIND_ARRAY, store: false },
  [D.DIF_OP_STTAA]: { scope: D.DIFV_SCOPE_THREAD, kind: D.DIFV_KIND_ARRAY, store: true },
};

export function isVariableOp(op: number): boolean {
  return op in DYNAMIC_OPS || op === D.DIF_OP_LDLS || op === D.DIF_OP_STLS;
}

/** A fault in the instruction being translated: its code and the register holding the address. */
type Fault = (code: number, addrReg?: number) => void;

/** LDTS/STTS, LDLS/STLS, LDGAA/STGAA, LDTAA/STTAA: `reg` is rd for loads and rs for stores. */
export function translateVariable(t: ProbeTranslator, op: number, ins: number, fault: Fault): void {
  const env = t.env.vars;
  const id = (ins >>> 8) & 0xffff, reg = ins & 0xff;
  if (!env) throw new TranslateError('variable instruction without a variable plan', t.ecbIndex, t.actionIndex);
  if (op === D.DIF_OP_LDLS || op === D.DIF_OP_STLS) return clauseLocal(t, env, op === D.DIF_OP_STLS, id, reg, fault);
  const { scope, kind, store } = DYNAMIC_OPS[op];
  const value = env.plan.dynamic.get(dynamicKey(scope, kind, id));
  if (value === undefined)
    throw new TranslateError(`variable ${id} is missing from the variable table`, t.ecbIndex, t.actionIndex);
  if (store) storeDynamic(t, env, scope, kind, id, reg, value, fault);
  else loadDynamic(t, env, scope, kind, id, reg, value, fault);
}

function clauseLocal(t: ProbeTranslator, env: VariableEnv, store: boolean, id: number, reg: number, fault: Fault): void {
  const a = t.a, mem = t.env.mem;
  const local = env.plan.locals.get(id);
  if (!local) throw new TranslateError(`clause-local variable ${id} is missing from the variable table`, t.ecbIndex, t.actionIndex);
  const off = env.base + local.offset;
  if (!store) {
    if (local.string || local.size > 0) a.ldx(8, R0, R8, mem.self), a.aluImm(ALU.ADD, R0, off);
    else a.ldx(8, R0, R8, off);
    if (local.string) loadStringSlot(a, () => a.ldx(1, R1, R8, off + env.plan.strsize - 1));
    t.putReg(R0, reg);
  } else if (local.string) {
    t.getReg(R3, reg);
    copyString(a, off, env.plan.strsize);
  } else if (local.size > 0) {
    copyBytes(t, off, local.size, reg, fault);
  } else {
    t.getReg(R1, reg);
    a.stx(8, R8, off, R1);
  }
}

/** Copy the string at kernel address R3 into mem at `off` (strsize bytes; "" when unreadable). */
function copyString(a: BpfAsm, off: number, strsize: number): void {
  a.mov(R1, R8), a.aluImm(ALU.ADD, R1, off);
  storeStringSlot(a, strsize);
}

/**
 * A string variable's slot of `size` bytes at R1 takes the string at R3, or NULL: DTrace keeps a
 * null string pointer (strchr() finding nothing, `s = NULL`), which compares equal to NULL and
 * faults when read. A copied string always ends in NUL within the slot, so a non-zero last byte
 * marks the null pointer (loadStringSlot).
 */
export function storeStringSlot(a: BpfAsm, size: number): void {
  const copy = a.label('str.copy'), done = a.label('str.stored');
  a.jmpImm(JMP.JNE, R3, 0, copy);
  a.st(1, R1, 0, 0);
  a.st(1, R1, size - 1, 1);
  a.ja(done);
  a.place(copy);
  a.st(1, R1, size - 1, 0);
  a.movImm(R2, size);
  a.call(HELPER.probe_read_kernel_str);
  a.place(done);
}

/**
 * R0, the address of a string variable's slot, becomes 0 when the slot holds NULL; `readMark`
 * loads the slot's last byte into R1 (through a pointer the verifier knows: R0 is a plain number).
 */
export function loadStringSlot(a: BpfAsm, readMark: () => void): void {
  const done = a.label('str.loaded');
  readMark();
  a.jmpImm(JMP.JEQ, R1, 0, done);
  a.movImm(R0, 0);
  a.place(done);
}

/**
 * Copy a struct, union or array value of `size` bytes from the kernel address in DIF register
 * `reg` into mem at `off`, as DTrace copies a by-reference value into a variable; an address that
 * cannot be read is an invalid address fault.
 */
function copyBytes(t: ProbeTranslator, off: number, size: number, reg: number, fault: Fault): void {
  const a = t.a;
  const ok = a.label('dvar.copied');
  a.mov(R1, R8), a.aluImm(ALU.ADD, R1, off);
  t.copyOrFault(size, (r) => t.getReg(r, reg), fault, ok);
  a.place(ok);
}

/**
 * Build the key of variable (scope, kind, id) -- with the tuple on the stack for arrays -- and
 * return its offset in mem. Thread-local scalars use a buffer whose tail is never written, so
 * only arrays pay for zeroing the tuple area.
 */
function buildKey(t: ProbeTranslator, env: VariableEnv, scope: number, kind: number, id: number, fault: Fault): number {
  const a = t.a, mem = t.env.mem, plan = env.plan;
  const array = kind === D.DIFV_KIND_ARRAY;
  const key = env.base + (array ? plan.key : plan.scalarKey);
  if (array) a.zero(R8, key + KEY_HEADER, plan.keySize - KEY_HEADER);
  a.st(4, R8, key, (kind << 24) | (scope << 16) | id);
  a.st(4, R8, key + 4, 0);
  if (scope !== D.DIFV_SCOPE_THREAD) a.st(8, R8, key + 8, 0);
  else {
    const have = a.label('tls.thread');
    emitTid(t); // the probe's thread (context-task.ts)
    a.jmpImm(JMP.JNE, R0, 0, have);
    a.call(HELPER.get_smp_processor_id);
    a.aluImm(ALU.ADD, R0, 1);
    a.aluImm(ALU.LSH, R0, 32);
    a.place(have);
    a.stx(8, R8, key + 8, R0);
  }
  if (!array) return key;
  let off = KEY_HEADER;
  t.tuple.forEach((entry, i) => {
    if (entry.byRef && entry.type !== D.DIF_TYPE_STRING) {
      // A struct or union key: its bytes, read from its address.
      if (entry.size === undefined)
        throw new TranslateError('associative array keys passed by reference must be strings or of constant size', t.ecbIndex, t.actionIndex);
      const ok = a.label('key.read');
      a.mov(R1, R8), a.aluImm(ALU.ADD, R1, key + off);
      t.copyOrFault(entry.size, (r) => a.ldx(8, r, R8, mem.tuple + 8 * i), fault, ok);
      a.place(ok);
      off += roundUp(entry.size, 8);
    } else if (entry.byRef) {
      a.ldx(8, R3, R8, mem.tuple + 8 * i);
      copyString(a, key + off, plan.strsize);
      off += roundUp(plan.strsize, 8);
    } else {
      a.ldx(8, R1, R8, mem.tuple + 8 * i);
      a.stx(8, R8, key + off, R1);
      off += 8;
    }
  });
  if (off > plan.keySize) throw new TranslateError('associative array key larger than planned', t.ecbIndex, t.actionIndex);
  return key;
}

function loadDynamic(t: ProbeTranslator, env: VariableEnv, scope: number, kind: number, id: number, rd: number, value: ValueKind, fault: Fault): void {
  const a = t.a, plan = env.plan;
  const missing = a.label('dvar.missing'), done = a.label('dvar.done');
  const key = buildKey(t, env, scope, kind, id, fault);
  const lookup = () => {
    a.ldMap(R1, env.mapFd);
    a.mov(R2, R8), a.aluImm(ALU.ADD, R2, key);
    a.call(HELPER.map_lookup_elem);
  };
  const found = () => {
    if (value.string || value.size > 0) {
      // A struct's entry stays writable through its address until the next such load: the pointer
      // on the stack for the store, its address beside it to find it by.
      if (!value.string) a.stx(8, FP, DYNVAR_PTR, R0);
      // Stored and loaded back, the entry's address is a plain number to the verifier.
      a.stx(8, R8, env.base + plan.addr, R0);
      a.ldx(8, R0, R8, env.base + plan.addr);
      if (!value.string) a.stx(8, FP, DYNVAR_ADDR, R0);
    } else {
      a.ldx(8, R0, R0, 0);
    }
    a.ja(done);
  };
  lookup();
  a.jmpImm(JMP.JEQ, R0, 0, missing);
  found();
  a.place(missing);
  if (kind === D.DIFV_KIND_ARRAY && !value.string && value.size > 0) {
    // A struct, union or array element is faulted in, zero-filled, when first loaded, as DTrace's
    // compiler does after a by-reference LDGAA/LDTAA (dt_cg_array_op): `i[k].n++` and `i[k].n`
    // then work on an element never assigned (a full space is a dynamic variable drop, and 0).
    const full = a.label('dvar.full');
    a.zero(R8, env.base + plan.value, roundUp(value.size, 8));
    a.ldMap(R1, env.mapFd);
    a.mov(R2, R8), a.aluImm(ALU.ADD, R2, key);
    a.mov(R3, R8), a.aluImm(ALU.ADD, R3, env.base + plan.value);
    a.movImm(R4, 1); // BPF_NOEXIST
    a.call(HELPER.map_update_elem); // failing, another CPU's insert may have made it
    lookup();
    a.jmpImm(JMP.JEQ, R0, 0, full);
    found();
    a.place(full);
    countDrop(t, env);
  }
  a.movImm(R0, 0);
  a.place(done);
  t.putReg(R0, rd);
}

function storeDynamic(t: ProbeTranslator, env: VariableEnv, scope: number, kind: number, id: number, rs: number,
  held: ValueKind, fault: Fault): void {
  const a = t.a, plan = env.plan;
  const remove = a.label('dvar.delete'), done = a.label('dvar.done');
  const value = env.base + plan.value;
  t.getReg(R1, rs);
  a.jmpImm(JMP.JEQ, R1, 0, remove);
  if (held.string) a.mov(R3, R1), copyString(a, value, plan.strsize);
  else if (held.size > 0) copyBytes(t, value, held.size, rs, fault);
  else a.stx(8, R8, value, R1);
  const key = buildKey(t, env, scope, kind, id, fault);
  a.ldMap(R1, env.mapFd);
  a.mov(R2, R8), a.aluImm(ALU.ADD, R2, key);
  a.mov(R3, R8), a.aluImm(ALU.ADD, R3, value);
  a.movImm(R4, 0); // BPF_ANY
  a.call(HELPER.map_update_elem);
  a.jmpImm(JMP.JEQ, R0, 0, done);
  // The space is full: a dynamic variable drop, and (as DTrace for Linux does) the clause is
  // abandoned there, recording nothing.
  countDrop(t, env);
  a.ja(t.clauseNext ?? done);
  a.place(remove);
  const removeKey = buildKey(t, env, scope, kind, id, fault);
  a.ldMap(R1, env.mapFd);
  a.mov(R2, R8), a.aluImm(ALU.ADD, R2, removeKey);
  a.call(HELPER.map_delete_elem);
  a.place(done);
}

function countDrop(t: ProbeTranslator, env: VariableEnv): void {
  const a = t.a;
  const skip = a.label('dvar.nodrop');
  a.st(4, FP, ZERO_KEY, 0);
  a.ldMap(R1, env.dropsFd);
  a.mov(R2, FP), a.aluImm(ALU.ADD, R2, ZERO_KEY);
  a.call(HELPER.map_lookup_elem);
  a.jmpImm(JMP.JEQ, R0, 0, skip);
  a.ldx(8, R1, R0, 0);
  a.aluImm(ALU.ADD, R1, 1);
  a.stx(8, R0, 0, R1);
  a.place(skip);
}
