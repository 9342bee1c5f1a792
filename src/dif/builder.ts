// DIF instruction encoders and decoders, and DifBuilder, which a code generator uses to assemble one
// DIF object: emit instructions, branch to labels (patched when placed), intern integer and string
// constants, collect variable table entries, and finish into a Difo.
//
// Every DIF instruction is a 32-bit word whose top byte is the opcode. The remaining 24 bits are one
// of: three 8-bit fields r1/r2/rd (R-format), a 24-bit branch label (B-format), or a 16-bit index
// in bits 8..23 with an 8-bit register in bits 0..7 (W-format: SETX, SETS, scalar variable
// loads/stores, CALL, XLATE).

import type { DifType, DifVar, Difo } from './difo.js';
import {
  DIF_OP_ALLOCS,
  DIF_OP_BA,
  DIF_OP_BLEU,
  DIF_OP_CALL,
  DIF_OP_COPYS,
  DIF_OP_FLUSHTS,
  DIF_OP_MAX,
  DIF_OP_MOV,
  DIF_OP_NOP,
  DIF_OP_NOT,
  DIF_OP_POPTS,
  DIF_OP_RET,
  DIF_OP_SETS,
  DIF_OP_SETX,
  DIF_OP_TST,
  DIF_INTOFF_MAX,
  DIF_STROFF_MAX,
} from './constants.js';

// ---------------------------------------------------------------------------------------------
// Field extraction

export const difOp = (i: number): number => (i >>> 24) & 0xff;
export const difR1 = (i: number): number => (i >>> 16) & 0xff;
export const difR2 = (i: number): number => (i >>> 8) & 0xff;
export const difRd = (i: number): number => i & 0xff;
export const difRs = difRd;
export const difLabel = (i: number): number => i & 0xffffff;
/** The 16-bit index of a W-format instruction: variable id, integer/string index, subroutine. */
export const difIndex = (i: number): number => (i >>> 8) & 0xffff;
export const difVar = difIndex;
export const difInteger = difIndex;
export const difString = difIndex;
export const difSubr = difIndex;
export const difXlref = difIndex;
/** The type field of PUSHTR/PUSHTV (in the r1 position). */
export const difType = difR1;

/** The value of a DIF object that only returns a constant (`setx`, `ret`), else null. */
export function difoConstant(difo: Difo): bigint | null {
  const [set, ret] = difo.insns;
  if (difo.insns.length !== 2 || difOp(set) !== DIF_OP_SETX || difOp(ret) !== DIF_OP_RET || difRd(ret) !== difRd(set)) return null;
  return difo.inttab[difInteger(set)] ?? null;
}

export function isBranchOp(op: number): boolean {
  return op >= DIF_OP_BA && op <= DIF_OP_BLEU;
}

// ---------------------------------------------------------------------------------------------
// Encoders. Each checks its fields and throws a RangeError rather than silently truncating.

function field(what: string, v: number, max: number): number {
  if (!Number.isInteger(v) || v < 0 || v > max) {
    throw new RangeError(`DIF ${what} ${v} is outside 0..${max}`);
  }
  return v;
}

function opcode(op: number): number {
  return field('opcode', op, 0xff);
}

/** R-format: op r1, r2, rd. */
export function encodeR(op: number, r1: number, r2: number, rd: number): number {
  return (
    ((opcode(op) << 24) | (field('r1', r1, 0xff) << 16) | (field('r2', r2, 0xff) << 8) | field('rd', rd, 0xff)) >>> 0
  );
}

/** B-format: op label (an instruction index). */
export function encodeBranch(op: number, label: number): number {
  return ((opcode(op) << 24) | field('branch label', label, 0xffffff)) >>> 0;
}

/** W-format: op index, reg. */
export function encodeW(op: number, index: number, reg: number): number {
  return ((opcode(op) << 24) | (field('index', index, 0xffff) << 8) | field('register', reg, 0xff)) >>> 0;
}

export const encodeNot = (r1: number, rd: number): number => encodeR(DIF_OP_NOT, r1, 0, rd);
export const encodeMov = (r1: number, rd: number): number => encodeR(DIF_OP_MOV, r1, 0, rd);
/** CMP or SCMP r1, r2. */
export const encodeCmp = (op: number, r1: number, r2: number): number => encodeR(op, r1, r2, 0);
export const encodeTst = (r1: number): number => encodeR(DIF_OP_TST, r1, 0, 0);
/** Loads: op [r1], rd. */
export const encodeLoad = (op: number, r1: number, rd: number): number => encodeR(op, r1, 0, rd);
/** Stores: op r1, [rd]. */
export const encodeStore = (op: number, r1: number, rd: number): number => encodeR(op, r1, 0, rd);
export const encodeSetx = (intIndex: number, rd: number): number => encodeW(DIF_OP_SETX, intIndex, rd);
export const encodeSets = (strOffset: number, rd: number): number => encodeW(DIF_OP_SETS, strOffset, rd);
export const encodeRet = (rd: number): number => encodeR(DIF_OP_RET, 0, 0, rd);
export const encodeNop = (): number => encodeR(DIF_OP_NOP, 0, 0, 0);
/** LDGA/LDTA: op var, ri, rd (the array variable id sits in the 8-bit r1 field). */
export const encodeLda = (op: number, varId: number, ri: number, rd: number): number =>
  encodeR(op, field('array variable id', varId, 0xff), ri, rd);
/** Scalar and associative loads: LDGS, LDTS, LDLS, LDGAA, LDTAA: op var, rd. */
export const encodeLdv = (op: number, varId: number, rd: number): number => encodeW(op, varId, rd);
/** Scalar and associative stores: STGS, STTS, STLS, STGAA, STTAA: op rs, var. */
export const encodeStv = (op: number, varId: number, rs: number): number => encodeW(op, varId, rs);
export const encodeCall = (subr: number, rd: number): number => encodeW(DIF_OP_CALL, subr, rd);
/** PUSHTR type, r2 (size), rs and PUSHTV type, rs (r2 = 0). */
export const encodePushts = (op: number, type: number, r2: number, rs: number): number =>
  encodeR(op, type, r2, rs);
export const encodePopts = (): number => encodeR(DIF_OP_POPTS, 0, 0, 0);
export const encodeFlushts = (): number => encodeR(DIF_OP_FLUSHTS, 0, 0, 0);
export const encodeAllocs = (r1: number, rd: number): number => encodeR(DIF_OP_ALLOCS, r1, 0, rd);
export const encodeCopys = (r1: number, r2: number, rd: number): number => encodeR(DIF_OP_COPYS, r1, r2, rd);
/** XLATE/XLARG: op xlref, rd. */
export const encodeXlate = (op: number, xlref: number, rd: number): number => encodeW(op, xlref, rd);

// ---------------------------------------------------------------------------------------------
// The builder

/** A branch target; create with newLabel(), place with placeLabel(). */
export type Label = number;

/** A variable table entry as the builder takes it. */
export type DifVarSpec = DifVar;

export class DifBuilder {
  private readonly insns: number[] = [];
  private readonly labelPc: (number | undefined)[] = [];
  private readonly pending: { pc: number; label: Label }[] = [];
  private readonly ints: bigint[] = [];
  private readonly intIndex = new Map<bigint, number>();
  /** The string table's text, each string with its NUL: encoded once, by finish(). */
  private strText = '';
  private strLength = 0;
  private readonly strOffset = new Map<string, number>();
  private readonly vars: DifVar[] = [];

  /** Index of the next instruction. */
  get pc(): number {
    return this.insns.length;
  }

  /** Append an encoded instruction; returns its index. */
  emit(instr: number): number {
    if (!Number.isInteger(instr) || instr < 0 || instr > 0xffffffff) {
      throw new RangeError(`DIF instruction ${instr} is not a 32-bit word`);
    }
    const op = difOp(instr);
    if (op === 0 || op > DIF_OP_MAX) throw new RangeError(`DIF opcode ${op} does not exist`);
    if (isBranchOp(op)) throw new Error('emit a branch with branch(op, label) so that it can be patched');
    this.insns.push(instr);
    return this.insns.length - 1;
  }

  /** Replace an instruction already emitted (a move whose target was not known yet). */
  patch(pc: number, instr: number): void {
    if (pc < 0 || pc >= this.insns.length) throw new RangeError(`DIF instruction ${pc} was not emitted`);
    if (isBranchOp(difOp(instr))) throw new Error('branches are patched through labels');
    this.insns[pc] = instr >>> 0;
  }

  newLabel(): Label {
    this.labelPc.push(undefined);
    return this.labelPc.length - 1;
  }

  /** Place a label at the next instruction and patch the branches already made to it. */
  placeLabel(label: Label): void {
    this.checkLabel(label);
    if (this.labelPc[label] !== undefined) throw new Error(`DIF label ${label} is placed twice`);
    this.labelPc[label] = this.pc;
  }

  /**
   * Emit a branch to a label. DIF has no backward branches (the kernel rejects them, so that every
   * DIF object terminates), so the label must not be placed yet.
   */
  branch(op: number, label: Label): number {
    if (!isBranchOp(op)) throw new RangeError(`DIF opcode ${op} is not a branch`);
    this.checkLabel(label);
    if (this.labelPc[label] !== undefined) {
      throw new Error(`DIF branch to label ${label} would go backward: DIF does not allow loops`);
    }
    this.insns.push(encodeBranch(op, 0));
    this.pending.push({ pc: this.insns.length - 1, label });
    return this.insns.length - 1;
  }

  /** Index of an integer in the integer table, adding it once. Values are kept as 64-bit words. */
  integer(value: bigint): number {
    const v = BigInt.asUintN(64, value);
    let i = this.intIndex.get(v);
    if (i === undefined) {
      i = this.ints.length;
      if (i > DIF_INTOFF_MAX) throw new RangeError('DIF integer table is full (65536 entries)');
      this.ints.push(v);
      this.intIndex.set(v, i);
    }
    return i;
  }

  /** Offset of a string in the string table, adding it (NUL-terminated) once. */
  string(s: string): number {
    let off = this.strOffset.get(s);
    if (off === undefined) {
      // Only U+0000 encodes to a NUL byte.
      if (s.includes('\0')) throw new Error('a DIF string cannot contain a NUL byte');
      off = this.strLength;
      if (off > DIF_STROFF_MAX) throw new RangeError('DIF string table is full (64 KiB)');
      this.strText += `${s}\0`;
      this.strLength += Buffer.byteLength(s, 'utf8') + 1;
      this.strOffset.set(s, off);
    }
    return off;
  }

  /** setx: load a 64-bit constant into rd through the integer table. */
  setx(value: bigint, rd: number): number {
    return this.emit(encodeSetx(this.integer(value), rd));
  }

  /** sets: load the address of a string constant into rd. */
  sets(s: string, rd: number): number {
    return this.emit(encodeSets(this.string(s), rd));
  }

  /**
   * Add a variable table entry (its name goes into the string table). An entry with the same id,
   * scope and kind is merged: flags are or-ed together.
   */
  variable(v: DifVarSpec): number {
    const i = this.vars.findIndex((e) => e.id === v.id && e.scope === v.scope && e.kind === v.kind);
    if (i >= 0) {
      const e = this.vars[i]!;
      if (e.name !== v.name) {
        throw new Error(`DIF variable id ${v.id} is both "${e.name}" and "${v.name}"`);
      }
      this.vars[i] = { ...e, flags: e.flags | v.flags };
      return i;
    }
    this.string(v.name);
    this.vars.push({ ...v, type: { ...v.type } });
    return this.vars.length - 1;
  }

  /** Finish: patch branches and return the DIF object. The last instruction must be ret. */
  finish(rtype: DifType): Difo {
    for (const { pc, label } of this.pending) {
      const target = this.labelPc[label];
      if (target === undefined) throw new Error(`DIF label ${label} is used but never placed`);
      if (target >= this.insns.length) {
        throw new Error(`DIF label ${label} is placed after the last instruction`);
      }
      this.insns[pc] = encodeBranch(difOp(this.insns[pc]!), target);
    }
    const last = this.insns[this.insns.length - 1];
    if (last === undefined || difOp(last) !== DIF_OP_RET) {
      throw new Error('a DIF object must end with a ret instruction');
    }
    return {
      insns: new Uint32Array(this.insns),
      strtab: Buffer.from(this.strText, 'utf8'),
      inttab: [...this.ints],
      vartab: this.vars.map((v) => ({ ...v, type: { ...v.type } })),
      rtype: { ...rtype },
    };
  }

  private checkLabel(label: Label): void {
    if (!Number.isInteger(label) || label < 0 || label >= this.labelPc.length) {
      throw new RangeError(`DIF label ${label} was not made by this builder`);
    }
  }
}
