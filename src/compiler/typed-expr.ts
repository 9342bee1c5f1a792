// Code generation for the expressions that depend on C types: member access (`.` and `->`),
// unary `*` and `&`, indexing of pointers and arrays, pointer arithmetic and comparison, casts,
// sizeof, offsetof and stringof.
//
// A value of a struct, union or array type is its address (DTrace passes these by reference), so
// `.`, `[]` and `*` on them compute addresses; scalar objects are then loaded from kernel memory
// with the DIF load of their width and signedness (the Linux bridge turns those into
// bpf_probe_read_kernel and faults on bad addresses). Messages are libdtrace's.

import * as D from '../dif/constants.js';
import { encodeCall, encodeLoad, encodeR } from '../dif/builder.js';
import type * as A from './ast.js';
import { DifoGen, type Val, err } from './codegen.js';
import { DtraceError } from './errors.js';
import { constValue } from './aggregations.js';
import { checkTranslatedInline, inlineArrayValue, translatedMember } from './translators.js';
import { isKernelModule, lookupKernelSymbol } from './ksyms.js';
import { PTRDIFF_T, SIZE_T, isStringCompatible, sizeOf, type TypeScope } from './ctypes.js';
import {
  isDynamicType, TRANSLATED_POINTER_TYPE, TRANSLATED_TYPE, BUILTINS, INT, intType, STRING, isByRef, isInteger, isScalar, pointerTo, typeName, type DType,
} from './types.js';

/** An object in memory: its address in `reg`, and for bit-fields where the bits are. */
export interface Place {
  reg: number;
  type: DType;
  /** Bit-field width (0 for whole objects) and bit offset from `reg`. */
  bits: number;
  bitOffset: number;
  userland: boolean;
}

function scope(g: DifoGen): TypeScope {
  return g.cg.types;
}

function isPointerLike(t: DType): boolean {
  return t.kind === 'pointer' || t.kind === 'array';
}

/** Resolve a struct definition through forward declarations, as `->` and `.` need it. */
function structOf(g: DifoGen, t: DType, op: string, at: A.Expression) {
  if (t.kind !== 'struct') return undefined;
  const def = scope(g).complete(t.def);
  if (!def) {
    throw err('D_OP_INCOMPLETE', `operator ${op} cannot be applied to a forward declaration: no ${t.def.union ? 'union' : 'struct'} ${t.def.tag ?? '(anon)'} definition is available`, at);
  }
  return def;
}

function addConst(g: DifoGen, reg: number, n: number, at: A.Expression): void {
  if (n === 0) return;
  const k = g.alloc(at);
  g.b.setx(BigInt(n), k);
  g.b.emit(encodeR(D.DIF_OP_ADD, reg, k, reg));
  g.release(k);
}

/** The place a member expression designates. */
function memberPlace(g: DifoGen, e: A.Member): Place {
  const op = e.arrow ? '->' : '.';
  const obj = g.expr(e.object);
  let target: DType = obj.type;
  let userland = false;
  if (e.arrow) {
    if (obj.type.kind !== 'pointer') {
      g.release(obj.reg);
      throw err('D_OP_PTR', 'operator -> must be applied to a pointer', e);
    }
    userland = obj.type.userland === true;
    target = scope(g).pointee(obj.type) ?? { kind: 'void' };
  }
  if (target.kind !== 'struct') {
    g.release(obj.reg);
    if (e.arrow) throw err('D_OP_SOU', `operator -> cannot be applied to pointer to type "${resolvedName(target)}"; must be applied to a struct or union pointer`, e);
    throw err('D_OP_SOU', `operator . cannot be applied to type "${resolvedName(target)}"; must be applied to a struct or union`, e);
  }
  const def = structOf(g, target, op, e)!;
  const m = scope(g).member(def, e.member);
  if (!m) {
    g.release(obj.reg);
    throw err('D_TYPE_MEMBER', `${e.member} is not a member of ${def.union ? 'union' : 'struct'} ${def.tag ?? '(anon)'}`, e);
  }
  const byteOffset = m.bits ? 0 : m.bitOffset / 8;
  addConst(g, obj.reg, byteOffset, e);
  return { reg: obj.reg, type: m.type, bits: m.bits, bitOffset: m.bits ? m.bitOffset : 0, userland };
}

/** The C name of a type with its typedef names resolved away (what ctf_type_resolve gives). */
function resolvedName(t: DType): string {
  switch (t.kind) {
    case 'int': {
      const base: Record<number, string> = { 1: 'char', 2: 'short', 4: 'int', 8: 'long' };
      return t.signed ? base[t.size] : `unsigned ${base[t.size]}`;
    }
    case 'array': case 'struct': case 'enum': return typeName({ ...t, name: undefined });
    default: return typeName(t);
  }
}

/** Load the value of an object: scalars from memory, aggregates stay addresses. */
function load(g: DifoGen, p: Place, at: A.Expression): Val {
  const t = p.type;
  if (p.bits) return loadBitfield(g, p, at);
  if (isByRef(t)) return { reg: p.reg, type: t };
  let size: number;
  let signed = false;
  if (t.kind === 'int') size = t.size, signed = t.signed;
  else if (t.kind === 'enum') size = 4, signed = true;
  else if (t.kind === 'pointer') size = 8;
  else if (t.kind === 'float' && t.size <= 8) size = t.size; // the bits, as DTrace records them
  else if (t.kind === 'float') return { reg: p.reg, type: t };
  else if (t.kind === 'string') return { reg: p.reg, type: STRING };
  else throw err('D_DEREF_VOID', 'cannot dereference pointer to void', at);
  g.b.emit(encodeLoad(D.difLoadOp(size as 1 | 2 | 4 | 8, signed, p.userland ? 'user' : 'kernel'), p.reg, p.reg));
  return { reg: p.reg, type: t };
}

/** Load the smallest power-of-two word holding the bits, then shift them into place. */
function loadBitfield(g: DifoGen, p: Place, at: A.Expression): Val {
  const b = g.b;
  const firstByte = Math.floor(p.bitOffset / 8);
  const shift = p.bitOffset % 8;
  const need = Math.ceil((shift + p.bits) / 8);
  const size = need <= 1 ? 1 : need <= 2 ? 2 : need <= 4 ? 4 : 8;
  addConst(g, p.reg, firstByte, at);
  b.emit(encodeLoad(D.difLoadOp(size, false, p.userland ? 'user' : 'kernel'), p.reg, p.reg));
  const signed = (p.type.kind === 'int' && p.type.signed) || p.type.kind === 'enum';
  // (word << (64 - shift - bits)) >> (64 - bits): drops the bits above, then those below.
  const k = g.alloc(at);
  b.setx(BigInt(64 - shift - p.bits), k);
  b.emit(encodeR(D.DIF_OP_SLL, p.reg, k, p.reg));
  b.setx(BigInt(64 - p.bits), k);
  b.emit(encodeR(signed ? D.DIF_OP_SRA : D.DIF_OP_SRL, p.reg, k, p.reg));
  g.release(k);
  return { reg: p.reg, type: p.type };
}

export function member(g: DifoGen, e: A.Member): Val {
  return translatedMember(g, e) ?? load(g, memberPlace(g, e), e);
}

/** The place `*e` designates. */
function derefPlace(g: DifoGen, e: A.Unary): Place {
  const v = asCharPointer(g.expr(e.operand)); // *s of a string is its first char, as in DTrace
  if (v.type === TRANSLATED_POINTER_TYPE) return { reg: v.reg, type: TRANSLATED_TYPE, bits: 0, bitOffset: 0, userland: false };
  if (!isPointerLike(v.type)) {
    g.release(v.reg);
    throw err('D_DEREF_NONPTR', 'cannot dereference non-pointer type', e);
  }
  const to = scope(g).pointee(v.type) ?? { kind: 'void' };
  if (to.kind === 'void') throw err('D_DEREF_VOID', 'cannot dereference pointer to void', e);
  if (to.kind === 'function') throw err('D_DEREF_FUNC', 'cannot dereference pointer to function', e);
  if (to.kind === 'struct') structOf(g, to, '*', e);
  return { reg: v.reg, type: to, bits: 0, bitOffset: 0, userland: v.type.kind === 'pointer' && v.type.userland === true };
}

export function dereference(g: DifoGen, e: A.Unary): Val {
  const p = derefPlace(g, e);
  return p.type === TRANSLATED_TYPE ? { reg: p.reg, type: p.type } : load(g, p, e);
}

/** Is `base[...]` pointer/array indexing (rather than an associative array)? */
export function isPointerIndex(g: DifoGen, e: A.Index): boolean {
  const base = e.base;
  if (base.kind === 'Aggregation') return false;
  // this->p[i], and self->p[i] once self->p is a scalar: clause-locals are never arrays.
  if (base.kind === 'ThreadLocal' || base.kind === 'ClauseLocal') return !g.cg.vars.handles(e);
  if (base.kind !== 'Identifier') return true;
  if (base.module !== undefined || BUILTINS.has(base.name) || scope(g).inlines.has(base.name)) return true;
  // A scalar global indexed is C's *(x + i) too, which DTrace refuses unless one side is a pointer.
  return g.cg.global(base.name) !== undefined;
}

/**
 * A D string as the char pointer it is held by (strings are passed by address), for indexing and
 * pointer arithmetic: `execname[0]`, `s + 1` (a `char *`), as DTrace allows them.
 */
function asCharPointer(v: Val): Val {
  return v.type.kind === 'string' ? { reg: v.reg, type: pointerTo(intType(1, true, 'char')) } : v;
}

function indexPlace(g: DifoGen, e: A.Index): Place {
  g.cg.vars.checkLocalIndex(e);
  const base = asCharPointer(g.expr(e.base));
  if (e.keys.length !== 1) {
    g.release(base.reg);
    throw err('D_ARR_BADREF', `cannot access ${describe(e.base)} as an associative array`, e);
  }
  if (base.type.kind === 'array') {
    // A constant index must lie inside a declared array (the index shown as unsigned, as DTrace does).
    const c = constValue(e.keys[0], scope(g));
    if (c !== null && base.type.count > 0 && BigInt.asUintN(64, c) >= BigInt(base.type.count))
      throw err('D_ARR_BOUNDS', `index outside array bounds: ${BigInt.asUintN(64, c)}, max is ${base.type.count}`, e);
  }
  let idx = g.expr(e.keys[0]);
  // x[i] is *(x + i): a scalar base needs a pointer index (x["a"]), else there is nothing to load.
  if (!isPointerLike(base.type) && !isPointerLike(asCharPointer(idx).type)) {
    g.release(base.reg);
    g.release(idx.reg);
    throw err('D_DEREF_NONPTR', 'cannot dereference non-pointer type', e);
  }
  if (base.type.kind === 'array' && base.type.count > 0 && constValue(e.keys[0], scope(g)) === null && isInteger(idx.type))
    idx = boundIndex(g, idx, base.type.count, sizeOf(base.type.of), e);
  const sum = addPointer(g, '+', base, idx, e);
  const to = scope(g).pointee(sum.type) ?? { kind: 'void' };
  if (to.kind === 'void') throw err('D_DEREF_VOID', 'cannot dereference pointer to void', e);
  return { reg: sum.reg, type: to, bits: 0, bitOffset: 0, userland: sum.type.kind === 'pointer' && sum.type.userland === true };
}

/**
 * A run-time index of a declared array checked against its bounds, as DTrace for Linux checks it
 * (a BADINDEX fault, the ERROR probe's arg5 the index); illumos would read past the array.
 */
function boundIndex(g: DifoGen, idx: Val, count: number, size: number, at: A.Expression): Val {
  const u64 = intType(8, false, 'uint64_t');
  const n = g.alloc(at), sz = g.alloc(at);
  g.b.setx(BigInt(count), n);
  g.b.setx(BigInt(size), sz);
  const vals: Val[] = [idx, { reg: n, type: u64 }, { reg: sz, type: u64 }];
  g.pushTuple(vals);
  for (const v of vals) g.release(v.reg);
  const rd = g.alloc(at);
  g.b.emit(encodeCall(D.DIF_SUBR_ARRAY_BOUND, rd));
  g.flushTuple();
  return { reg: rd, type: idx.type };
}

export function indexPointer(g: DifoGen, e: A.Index): Val {
  return load(g, indexPlace(g, e), e);
}

/** The object `*p`, `p[i]`, `s->m` or `s.m` designates, its address computed (stores.ts). */
export function memoryPlace(g: DifoGen, e: A.Expression): Place | undefined {
  if (e.kind === 'Unary' && e.op === '*') return derefPlace(g, e);
  if (e.kind === 'Member') return memberPlace(g, e);
  if (e.kind === 'Index' && isPointerIndex(g, e)) return indexPlace(g, e);
  return undefined;
}

/** How dt_node_name() names the indexed expression. */
function describe(e: A.Expression): string {
  if (e.kind === 'Identifier' || e.kind === 'ThreadLocal' || e.kind === 'ClauseLocal') return `scalar ${e.name}`;
  if (e.kind === 'Member') return `operator ${e.arrow ? '->' : '.'}`;
  if (e.kind === 'Index') return 'operator [';
  if (e.kind === 'Unary') return `operator ${e.op}`;
  return 'expression';
}

/** The object a kernel symbol (`` `name ``, `` mod`name ``) names: its address and BTF type. */
function symbolPlace(g: DifoGen, e: A.Identifier): Place {
  const sym = lookupKernelSymbol(e.module!, e.name);
  if (!sym) {
    // libdtrace's EDT_NOMOD: a module the kernel does not have (now) is no longer loaded.
    const why = e.module !== '' && !isKernelModule(e.module!) ? 'Module is no longer loaded' : 'Unknown symbol name';
    throw err('D_IDENT_UNDEF', `failed to resolve ${e.module}\`${e.name}: ${why}`, e);
  }
  const type = scope(g).kernelSymbolType(sym.module, e.name);
  if (!type) {
    throw err('D_SYM_NOTYPES', `no symbolic type information is available for ${sym.module}\`${e.name}: No type information available for symbol`, e);
  }
  const r = g.alloc(e);
  g.b.setx(sym.addr, r);
  return { reg: r, type, bits: 0, bitOffset: 0, userland: false };
}

/** The value of a kernel symbol: loaded from kernel memory (a function stays its address). */
export function kernelSymbol(g: DifoGen, e: A.Identifier): Val {
  const p = symbolPlace(g, e);
  return p.type.kind === 'function' ? { reg: p.reg, type: p.type } : load(g, p, e);
}

/** `&e` for the objects D lets a program take the address of. */
export function addressOf(g: DifoGen, e: A.Unary): Val {
  const o = e.operand;
  let p: Place;
  if (o.kind === 'Identifier' && o.module !== undefined) {
    p = symbolPlace(g, o);
    return { reg: p.reg, type: pointerTo(p.type) };
  }
  // An inline or an enumerator names a value, which has no address.
  if (o.kind === 'Identifier' && (scope(g).inlines.has(o.name) || scope(g).enumerators.has(o.name)))
    throw err('D_ADDROF_LVAL', 'unacceptable operand for unary & operator', e);
  if (o.kind === 'Identifier' || o.kind === 'ThreadLocal' || o.kind === 'ClauseLocal' || o.kind === 'Aggregation')
    throw err('D_ADDROF_VAR', 'cannot take address of dynamic variable', e);
  if (o.kind === 'Xlate') throw err('D_ADDROF_VAR', 'cannot take address of dynamic object', e);
  if (o.kind === 'Member') p = memberPlace(g, o);
  else if (o.kind === 'Unary' && o.op === '*') p = derefPlace(g, o);
  else if (o.kind === 'Index' && isPointerIndex(g, o)) p = indexPlace(g, o);
  else throw err('D_ADDROF_LVAL', 'unacceptable operand for unary & operator', e);
  if (p.type.kind === 'array') {
    g.release(p.reg);
    throw err('D_ADDROF_LVAL', 'unacceptable operand for unary & operator', e);
  }
  if (p.bits) {
    g.release(p.reg);
    throw err('D_ADDROF_BITFIELD', 'cannot take address of bit-field', e);
  }
  return { reg: p.reg, type: pointerTo(p.type, p.userland) };
}

// ---- arithmetic and comparison

/**
 * An array or function may not be assigned to, not even a char array from a string: DTrace
 * refuses `=` on one (D_OP_ARRFUN), whether a variable or an object in memory.
 */
export function refuseArrayTarget(t: DType, at: A.Expression): void {
  if (t.kind === 'array' || t.kind === 'function')
    throw err('D_OP_ARRFUN', `operator = may not be applied to operand of type "${typeName(t)}"`, at);
}

export function isNullConstant(e: A.Expression): boolean {
  return (e.kind === 'IntegerLiteral' && e.value === 0n) || isNullIdentifier(e);
}

/**
 * `NULL`: D's built-in alias for address 0 -- an int 0 (sizeof (NULL) is 4 in DTrace) that, like
 * the literal 0, a pointer may be compared with or assigned.
 */
function isNullIdentifier(e: A.Expression): boolean {
  return e.kind === 'Identifier' && e.name === 'NULL' && e.module === undefined;
}

function elementSize(g: DifoGen, t: DType): number {
  const to = scope(g).pointee(t);
  return to ? sizeOf(to) : 0;
}

/** What `++` and `--` add to a value of type t: the pointee's size for a pointer, else 1. */
export function updateStep(g: DifoGen, t: DType): bigint {
  return t.kind === 'pointer' && elementSize(g, t) > 0 ? BigInt(elementSize(g, t)) : 1n;
}

/** `p + i`, `i + p`, `p - i`, `p - q` with C's scaling; the operands' registers are consumed. */
function addPointer(g: DifoGen, op: '+' | '-', l: Val, r: Val, at: A.Expression): Val {
  const b = g.b;
  const lp = isPointerLike(l.type) && elementSize(g, l.type) > 0;
  const rp = isPointerLike(r.type) && elementSize(g, r.type) > 0;
  const li = isInteger(l.type) && l.type.kind !== 'pointer';
  const ri = isInteger(r.type) && r.type.kind !== 'pointer';
  const incompatible = () => err('D_OP_INCOMPAT', `operands have incompatible types: "${typeName(l.type)}" ${shownOperator(op, at)} "${typeName(r.type)}"`, at);
  const scale = (reg: number, n: number) => {
    if (n === 1) return;
    const k = g.alloc(at);
    b.setx(BigInt(n), k);
    b.emit(encodeR(D.DIF_OP_MUL, reg, k, reg));
    g.release(k);
  };
  const decay = (t: DType): DType => (t.kind === 'array' ? pointerTo(t.of) : t);
  if (lp && ri) {
    scale(r.reg, elementSize(g, l.type));
    b.emit(encodeR(op === '+' ? D.DIF_OP_ADD : D.DIF_OP_SUB, l.reg, r.reg, l.reg));
    g.release(r.reg);
    return { reg: l.reg, type: decay(l.type) };
  }
  if (li && rp && op === '+') {
    scale(l.reg, elementSize(g, r.type));
    b.emit(encodeR(D.DIF_OP_ADD, l.reg, r.reg, l.reg));
    g.release(r.reg);
    return { reg: l.reg, type: decay(r.type) };
  }
  if (lp && rp && op === '-' && pointersCompatible(g, l.type, r.type)) {
    b.emit(encodeR(D.DIF_OP_SUB, l.reg, r.reg, l.reg));
    const n = elementSize(g, l.type);
    if (n !== 1) {
      b.setx(BigInt(n), r.reg);
      b.emit(encodeR(D.DIF_OP_SDIV, l.reg, r.reg, l.reg));
    }
    g.release(r.reg);
    return { reg: l.reg, type: PTRDIFF_T };
  }
  g.release(l.reg), g.release(r.reg);
  throw incompatible();
}

export function sameType(a: DType, b: DType): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'int': return b.kind === 'int' && a.size === b.size && a.signed === b.signed;
    case 'struct': return b.kind === 'struct' && (a.def === b.def || (a.def.tag !== null && a.def.tag === b.def.tag && a.def.union === b.def.union));
    case 'enum': return b.kind === 'enum' && (a.def === b.def || (a.def.tag !== null && a.def.tag === b.def.tag));
    case 'array': return b.kind === 'array' && a.count === b.count && sameType(a.of, b.of);
    case 'pointer': return b.kind === 'pointer' && a.name.replace(/\s+/g, '') === b.name.replace(/\s+/g, '');
    case 'float': return b.kind === 'float' && a.size === b.size;
    default: return true;
  }
}

function pointersCompatible(g: DifoGen, a: DType, b: DType): boolean {
  if (a.kind === 'pointer' && b.kind === 'pointer' && (a.userland === true) !== (b.userland === true)) return false;
  const ta = scope(g).pointee(a), tb = scope(g).pointee(b);
  if (!ta || !tb) return false;
  return ta.kind === 'void' || tb.kind === 'void' || sameType(ta, tb);
}

/**
 * Arithmetic on typed operands: pointer +/- integer, pointer - pointer, and the errors for
 * operands that are not integers. Returns null for plain integers (and strings), which the
 * caller handles as before.
 */
export function typedArith(g: DifoGen, op: A.BinaryOperator, l: Val, r: Val, at: A.Expression): Val | null {
  const plain = (t: DType) => t.kind === 'int' || t.kind === 'string';
  const integral = (t: DType) => t.kind === 'int' || t.kind === 'enum';
  if (at.kind === 'Binary' && at.written) checkCompound(g, at.written, l, r, at);
  // A string plus or minus an integer is still a string in DTrace ("abc" + 1 traces as "bc").
  if ((op === '+' && l.type.kind === 'string' && integral(r.type)) || (op === '-' && l.type.kind === 'string' && integral(r.type)) ||
      (op === '+' && integral(l.type) && r.type.kind === 'string'))
    return { reg: addPointer(g, op, asCharPointer(l), asCharPointer(r), at).reg, type: STRING };
  if (plain(l.type) && plain(r.type)) return null;
  if (op === '+' || op === '-') {
    if (isPointerLike(l.type) || isPointerLike(r.type)) return addPointer(g, op, l, r, at);
  }
  const ints = (t: DType) => t.kind === 'int' || t.kind === 'enum';
  if (ints(l.type) && ints(r.type)) return null; // enums behave as int
  g.release(l.reg), g.release(r.reg);
  const shown = shownOperator(op, at);
  if (op === '+' || op === '-')
    throw err('D_OP_INCOMPAT', `operands have incompatible types: "${typeName(l.type)}" ${shown} "${typeName(r.type)}"`, at);
  if (op === '*' || op === '/') throw err('D_OP_ARITH', `operator ${shown} requires operands of arithmetic type`, at);
  throw err('D_OP_INT', `operator ${shown} requires operands of integral type`, at);
}

/** `i += p` would store a pointer in an integer: DTrace refuses it where `i + p` is fine. */
export function checkCompound(g: DifoGen, written: A.AssignmentOperator, l: Val, r: Val, at: A.Expression): void {
  const integral = l.type.kind === 'int' || l.type.kind === 'enum';
  if ((written !== '+=' && written !== '-=') || !integral || (r.type.kind !== 'string' && !isPointerLike(r.type))) return;
  g.release(l.reg), g.release(r.reg);
  if (written === '-=' && r.type.kind !== 'string')
    throw err('D_OP_VFPTR', `operator ${written} requires left-hand scalar operand of known size`, at);
  throw err('D_OP_INCOMPAT', `operands have incompatible types: "${typeName(l.type)}" ${written} "${typeName(r.type)}"`, at);
}

/** The operator a message names: a compound assignment's as written (`+=`), else `op`. */
export function shownOperator(op: A.BinaryOperator, at: A.Expression): string {
  if (at.kind === 'Binary' && at.written) return at.written;
  if (at.kind === 'Assignment' && at.op !== '=') return at.op;
  return op;
}

/**
 * Type-check a relational operator as DTrace does: integers with integers, strings with
 * string-compatible values (a strcmp), compatible pointers, or a pointer with constant 0.
 * Returns whether the comparison is a string comparison.
 */
export function comparison(g: DifoGen, e: A.Binary, l: Val, r: Val): 'string' | 'integer' {
  const lt = l.type, rt = r.type;
  if (isInteger(lt) && isInteger(rt) && lt.kind !== 'pointer' && rt.kind !== 'pointer') return 'integer';
  const sl = isStringCompatible(lt, scope(g)), sr = isStringCompatible(rt, scope(g));
  if (sl && sr && (lt.kind === 'string' || rt.kind === 'string')) return 'string';
  if (sameType(lt, rt) && isScalar(lt)) return 'integer';
  const lint = isInteger(lt) && lt.kind !== 'pointer', rint = isInteger(rt) && rt.kind !== 'pointer';
  if (isPointerLike(lt) && rint && isNullConstant(e.right)) return 'integer';
  if (isPointerLike(rt) && lint && isNullConstant(e.left)) return 'integer';
  // DTrace's string is a char array, so dt_node_is_ptrcompat lets it meet a constant 0 too:
  // `s != NULL` compares the string's address (0 while a dynamic variable is unassigned).
  if (lt.kind === 'string' && rint && isNullConstant(e.right)) return 'integer';
  if (rt.kind === 'string' && lint && isNullConstant(e.left)) return 'integer';
  if (isPointerLike(lt) && isPointerLike(rt) && pointersCompatible(g, lt, rt)) return 'integer';
  g.release(l.reg), g.release(r.reg);
  throw err('D_OP_INCOMPAT', `operands have incompatible types: "${typeName(lt)}" ${e.op} "${typeName(rt)}"`, e);
}

// ---- casts, sizeof, offsetof, stringof

export function cast(g: DifoGen, e: A.Cast): Val {
  const to = scope(g).resolve(e.type.type);
  const v = g.expr(e.operand);
  const from = v.type;
  // An enum known only by its tag (enum nosuch) has no size to convert to.
  const incomplete = to.kind === 'enum' && !to.def.complete;
  const ok =
    sameType(to, from) ||
    (isScalar(to) && !incomplete && (isScalar(from) || (from.kind === 'function' && !isDynamicType(from)))) ||
    to.kind === 'void' ||
    (to.kind === 'pointer' && isPointerLike(from)) ||
    (to.kind === 'string' && (isScalar(from) || isPointerLike(from) || isStringCompatible(from, scope(g))));
  if (!ok) {
    g.release(v.reg);
    throw err('D_CAST_INVAL', `invalid cast expression: "${typeName(from)}" to "${typeName(to)}"`, e);
  }
  if (to.kind === 'int') narrow(g, v.reg, to, e);
  return { reg: v.reg, type: to };
}

/** Truncate a register to an integer type narrower than 64 bits, sign- or zero-extending it. */
export function narrow(g: DifoGen, reg: number, to: DType & { kind: 'int' }, at: A.Expression): void {
  if (to.size === 8) return;
  const k = g.alloc(at);
  g.b.setx(BigInt(64 - to.size * 8), k);
  g.b.emit(encodeR(D.DIF_OP_SLL, reg, k, reg));
  g.b.emit(encodeR(to.signed ? D.DIF_OP_SRA : D.DIF_OP_SRL, reg, k, reg));
  g.release(k);
}

function constantVal(g: DifoGen, n: number | bigint, type: DType, at: A.Expression): Val {
  const r = g.alloc(at);
  g.b.setx(BigInt(n), r);
  return { reg: r, type };
}

export function sizeofType(g: DifoGen, e: A.SizeofType): Val {
  const t = scope(g).resolve(e.type.type);
  const n = sizeOf(t, g.opts.strsize);
  if (n === 0) throw err('D_SIZEOF_TYPE', 'cannot apply sizeof to an operand of unknown size', e);
  return constantVal(g, n, SIZE_T, e);
}

export function sizeofExpression(g: DifoGen, e: A.SizeofExpression): Val {
  const o = e.operand;
  if (o.kind === 'StringLiteral') return constantVal(g, o.bytes.length + 1, SIZE_T, e);
  // The operand is typed but not evaluated: compile it into a scratch DIF object.
  const scratch = new DifoGen(g.cg, g.opts);
  let type: DType;
  let bits = false;
  if (o.kind === 'Member') {
    const p = memberPlace(scratch, o);
    type = p.type, bits = p.bits > 0;
  } else if (g.cg.vars.handles(o) && !(o.kind === 'Index' && inlineArrayValue(scratch, o))) {
    type = g.cg.vars.sizeofType(scratch, o);
  } else type = scratch.expr(o).type;
  if (bits) throw err('D_SIZEOF_BITFIELD', 'cannot apply sizeof to a bit-field', e);
  const n = sizeOf(type, g.opts.strsize);
  if (n === 0) throw err('D_SIZEOF_TYPE', 'cannot apply sizeof to an operand of unknown size', e);
  return constantVal(g, n, SIZE_T, e);
}

export function offsetof(g: DifoGen, e: A.Offsetof): Val {
  const t = scope(g).resolve(e.type.type);
  if (t.kind !== 'struct') throw err('D_OFFSETOF_TYPE', 'offsetof operand must be a struct or union type', e);
  // A struct or union only declared (struct nosuch) has no members to take an offset of.
  const def = scope(g).complete(t.def);
  if (!def) throw err('D_OFFSETOF_TYPE', 'offsetof operand must be a struct or union type', e);
  const m = scope(g).member(def, e.member);
  if (!m) throw err('D_UNKNOWN', `failed to determine offset of ${e.member}: Member name not found.`, e);
  if (m.bits) throw err('D_OFFSETOF_BITFIELD', `cannot take offset of a bit-field: ${e.member}`, e);
  return constantVal(g, Math.floor(m.bitOffset / 8), INT, e);
}

export function stringof(g: DifoGen, e: A.Stringof): Val {
  const v = g.expr(e.operand);
  if (!isScalar(v.type) && !isPointerLike(v.type) && !isStringCompatible(v.type, scope(g))) {
    g.release(v.reg);
    throw err('D_STRINGOF_TYPE', `cannot apply stringof to a value of type ${typeName(v.type)}`, e);
  }
  return { reg: v.reg, type: STRING };
}

/**
 * In `x == NAME` where x is of an enum type, NAME may be one of that enum's tags (kernel enums
 * included); undefined when that rule does not apply.
 */
export function enumTagOperand(g: DifoGen, l: Val, e: A.Binary): Val | undefined {
  const r = e.right;
  if (l.type.kind !== 'enum' || r.kind !== 'Identifier' || r.module !== undefined) return undefined;
  const value = l.type.def.values.get(r.name);
  if (value === undefined) return undefined;
  if (g.cg.global(r.name) || scope(g).inlines.has(r.name) || BUILTINS.has(r.name)) {
    throw err('D_IDENT_AMBIG', `ambiguous use of operator ${e.op}: ${r.name} is both a ${typeName(l.type)} enum tag and a global ${scope(g).inlines.has(r.name) ? 'inline' : 'scalar'}`, e);
  }
  return constantVal(g, value, l.type, r);
}

/** An enumerator or an inline used as a value; undefined when the name is neither. */
export function namedConstant(g: DifoGen, e: A.Identifier): Val | undefined {
  if (e.module !== undefined) return undefined;
  const s = scope(g);
  const en = s.enumerators.get(e.name);
  if (en) return constantVal(g, en.value, en.type, e);
  const inl = s.inlines.get(e.name);
  if (inl) {
    if (inlineDepth > 64) throw err('D_IDENT_UNDEF', `failed to resolve ${e.name}: Unknown variable name`, e);
    inlineDepth++;
    try {
      const v = g.expr(inl.value);
      // An inline of an xlate (curpsinfo) is translated data, not a value of its declared type:
      // each use but a member reference refuses it, as DTrace does. An integer constant inline
      // is its constant, of the constant's own type: `inline char c = 300` is 300, sizeof 4.
      return isDynamicType(v.type) || (inl.constant !== undefined && isInteger(v.type)) ? v : { reg: v.reg, type: inl.type };
    } finally {
      inlineDepth--;
    }
  }
  if (isNullIdentifier(e)) return constantVal(g, 0n, INT, e);
  return undefined;
}

let inlineDepth = 0;

/** May a value `v` (of expression `e`) be assigned to, or passed as, type `t`? (dt_node_is_argcompat) */
export function assignable(g: DifoGen, t: DType, v: Val, e: A.Expression): boolean {
  return (
    (isInteger(t) && t.kind !== 'pointer' && isInteger(v.type) && v.type.kind !== 'pointer') ||
    (isStringCompatible(t, scope(g)) && isStringCompatible(v.type, scope(g))) ||
    sameType(t, v.type) ||
    (isPointerLike(t) && isPointerLike(v.type) && pointersCompatible(g, t, v.type)) ||
    (isPointerLike(t) && isNullConstant(e))
  );
}

/** Check an inline's value against its declared type (dt_cook_inline's rule). */
export function checkInline(g: DifoGen, name: string): void {
  const inl = scope(g).inlines.get(name);
  if (!inl) return;
  if (checkTranslatedInline(g, name, inl.type, inl.value)) return;
  const v = g.expr(inl.value);
  g.release(v.reg);
  const t = inl.type;
  if (!assignable(g, t, v, inl.value)) {
    throw new DtraceError('D_OP_INCOMPAT', `inline ${name} definition uses incompatible types: "${typeName(t)}" = "${typeName(v.type)}"`, {
      line: inl.value.line, column: inl.value.column, file: inl.value.file,
    });
  }
}

