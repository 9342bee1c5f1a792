// Stores through pointers: `*p = v`, `p[i] = v`, `s->m = v`, their compound forms and ++/--.
//
// DTrace's rules (dt_cook_op1/op2, facts only): a dereference, an element or a member is an
// lvalue unless it is an array that is not a string; it is writable when what it is reached
// through is writable -- a D variable, a cast to a pointer type, or for `*(a + b)` (so `p[i]`) an
// `a` that is. Assigning to anything else is D_OP_LVAL or D_OP_WRITE. The store is the DIF
// STB/STH/STW/STX of the object's size; the kernel lets it write only DTrace's scratch and
// variable memory (dtrace_canstore), else it faults with an invalid address.

import * as D from '../dif/constants.js';
import { encodeCopys, encodeLoad, encodeR, encodeStore } from '../dif/builder.js';
import type * as A from './ast.js';
import { type DifoGen, type Val, err } from './codegen.js';
import { type Place, assignable, isPointerIndex, memoryPlace, refuseArrayTarget, updateStep } from './typed-expr.js';
import { difType, isByRef, isScalar, typeName, type DType } from './types.js';

const STORES: Record<number, number> = { 1: D.DIF_OP_STB, 2: D.DIF_OP_STH, 4: D.DIF_OP_STW, 8: D.DIF_OP_STX };

/** Is `e` an object in memory a program may name as an lvalue (rather than a variable)? */
export function isMemoryTarget(g: DifoGen, e: A.Expression): boolean {
  if (e.kind === 'Unary') return e.op === '*';
  if (e.kind === 'Member') return true;
  return e.kind === 'Index' && !g.cg.vars.handles(e) && isPointerIndex(g, e);
}

/** DT_NF_WRITABLE: may a program store through `e`? */
function writable(g: DifoGen, e: A.Expression): boolean {
  switch (e.kind) {
    case 'ThreadLocal': case 'ClauseLocal': return true;
    case 'Identifier': return e.module === undefined && g.cg.global(e.name) !== undefined;
    case 'Cast': return g.cg.types.resolve(e.type.type).kind === 'pointer';
    case 'Member': return writable(g, e.object);
    case 'Unary':
      return e.op === '*' &&
        (writable(g, e.operand) || (e.operand.kind === 'Binary' && e.operand.op === '+' && writable(g, e.operand.left)));
    case 'Index': {
      const base = e.base; // p[i] is *(p + i)
      return g.cg.vars.handles(e) || writable(g, base);
    }
    default: return false;
  }
}

function checkWritable(g: DifoGen, target: A.Expression, op: string, at: A.Expression): void {
  if (!writable(g, target)) throw err('D_OP_WRITE', `operator ${op} can only be applied to a writable variable`, at);
}

/** The place `target` designates, or D_OP_LVAL when it is an array (not a string). */
function lvaluePlace(g: DifoGen, target: A.Expression, op: string, at: A.Expression): Place {
  const p = memoryPlace(g, target)!;
  if (p.type.kind === 'array' || p.type.kind === 'function') {
    g.release(p.reg);
    if (op === '=') refuseArrayTarget(p.type, at);
    throw err('D_OP_LVAL', `operator ${op} requires modifiable lvalue as an operand`, at);
  }
  return p;
}

function storeSize(t: DType): number | undefined {
  if (t.kind === 'int') return t.size;
  if (t.kind === 'enum') return 4;
  if (t.kind === 'pointer') return 8;
  return undefined;
}

/**
 * The bytes COPYS copies into a struct, union or string place: as dt_cg_store, the size of the
 * source's type -- a struct's or array's size, strsize for a string, a string constant's length
 * and NUL.
 */
function copySize(g: DifoGen, t: DType, v: Val, src: A.Expression | undefined): number | undefined {
  if (t.kind !== 'struct' && t.kind !== 'string') return undefined;
  if (src?.kind === 'StringLiteral') {
    const nul = src.bytes.indexOf(0);
    return (nul < 0 ? src.bytes.length : nul) + 1;
  }
  return difType(v.type, g.opts.strsize).size;
}

/** Emit the store of v into place p (consumed), as dt_cg_store does. */
function store(g: DifoGen, p: Place, v: Val, at: A.Expression, src?: A.Expression): void {
  const reg = v.reg;
  if (p.bits) return storeBitfield(g, p, reg, at);
  const copy = copySize(g, p.type, v, src);
  if (copy !== undefined) {
    // Structs, unions and strings are passed by reference: copy the bytes at reg to the place.
    const n = g.alloc(at);
    g.b.setx(BigInt(copy), n);
    g.b.emit(encodeCopys(reg, n, p.reg));
    g.release(n);
    g.release(p.reg);
    return;
  }
  const size = storeSize(p.type);
  if (size === undefined || isByRef(p.type)) {
    g.release(p.reg);
    throw err('D_UNSUPPORTED', `stores of type ${typeName(p.type)} through a pointer are not supported yet`, at);
  }
  g.b.emit(encodeStore(STORES[size]!, reg, p.reg));
  g.release(p.reg);
}

/** A bit-field: load the word holding it, replace its bits, store the word back. */
function storeBitfield(g: DifoGen, p: Place, reg: number, at: A.Expression): void {
  const b = g.b;
  // The smallest naturally aligned word holding the bits, as DIF stores must be aligned.
  const end = p.bitOffset + p.bits;
  const size = [1, 2, 4, 8].find((n) => end <= (Math.floor(p.bitOffset / (8 * n)) + 1) * 8 * n) ?? 8;
  const firstByte = Math.floor(p.bitOffset / (8 * size)) * size, shift = p.bitOffset - 8 * firstByte;
  const loads: Record<number, number> = { 1: D.DIF_OP_LDUB, 2: D.DIF_OP_LDUH, 4: D.DIF_OP_LDUW, 8: D.DIF_OP_LDX };
  const mask = ((1n << BigInt(p.bits)) - 1n) << BigInt(shift);
  const k = g.alloc(at), word = g.alloc(at), bits = g.alloc(at);
  if (firstByte) b.setx(BigInt(firstByte), k), b.emit(encodeR(D.DIF_OP_ADD, p.reg, k, p.reg));
  b.emit(encodeLoad(loads[size]!, p.reg, word));
  b.setx(BigInt.asUintN(64, ~mask), k);
  b.emit(encodeR(D.DIF_OP_AND, word, k, word));
  b.setx(BigInt(shift), k);
  b.emit(encodeR(D.DIF_OP_SLL, reg, k, bits));
  b.setx(mask, k);
  b.emit(encodeR(D.DIF_OP_AND, bits, k, bits));
  b.emit(encodeR(D.DIF_OP_OR, word, bits, word));
  b.emit(encodeStore(STORES[size]!, word, p.reg));
  for (const r of [k, word, bits, p.reg]) g.release(r);
}

/** `target = v` and `target op= v` for a target in memory. */
export function storeAssignment(g: DifoGen, e: A.Assignment): Val {
  const target = e.target;
  let v: Val;
  if (e.op === '=') {
    v = g.expr(e.value);
    if (v.type.kind === 'void') throw err('D_OP_VOID', 'operator = cannot be applied to a void expression', e);
  } else {
    // x op= y is x = x op y, the address computed again for the store, as DTrace does.
    const op = e.op.slice(0, -1) as A.BinaryOperator;
    v = g.expr({ kind: 'Binary', op, left: target, right: e.value, line: e.line, column: e.column, file: e.file });
  }
  checkWritable(g, target, e.op, e);
  const p = lvaluePlace(g, target, e.op, e);
  if (e.op === '=' && !assignable(g, p.type, v, e.value)) {
    g.release(p.reg);
    throw err('D_OP_INCOMPAT', `operands have incompatible types: "${typeName(p.type)}" = "${typeName(v.type)}"`, e);
  }
  const type = p.type;
  store(g, p, v, e, e.op === '=' ? e.value : undefined);
  return { reg: v.reg, type };
}

/** `++target`, `target--`, ... for a target in memory: load, add the step, store. */
export function storeUpdate(g: DifoGen, e: A.Update): Val {
  const old = g.expr(e.operand);
  if (!isScalar(old.type)) {
    g.release(old.reg);
    throw err('D_OP_SCALAR', `operator ${e.op} requires operand of scalar type`, e);
  }
  checkWritable(g, e.operand, e.op, e);
  const one = g.alloc(e);
  g.b.setx(updateStep(g, old.type), one);
  const nv = g.alloc(e);
  g.b.emit(encodeR(e.op === '++' ? D.DIF_OP_ADD : D.DIF_OP_SUB, old.reg, one, nv));
  g.release(one);
  const p = lvaluePlace(g, e.operand, e.op, e);
  store(g, p, { reg: nv, type: old.type }, e);
  if (e.prefix) {
    g.release(old.reg);
    return { reg: nv, type: old.type };
  }
  g.release(nv);
  return old;
}
