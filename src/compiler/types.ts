// D types: the C type system (integers, floats, pointers, arrays, structs, unions, enums) plus D's
// string, as the code generator needs them. Kernel types come from BTF through ctypes.ts; script
// declarations build the same shapes. Struct members are resolved lazily (kernel structs are large
// and point at each other), so a struct type carries a shared StructDef.

import * as D from '../dif/constants.js';
import type { DifType } from '../dif/difo.js';

export type DType =
  /** `spelling`: a kernel integer's name as BTF spells it (`long unsigned int`), which print() shows. */
  | { kind: 'int'; size: 1 | 2 | 4 | 8; signed: boolean; name: string; spelling?: string }
  | { kind: 'string' }
  /** `to` is the pointee; when absent, ctypes resolves it from `name` (e.g. built-in curthread). */
  | { kind: 'pointer'; name: string; to?: DType; userland?: boolean }
  | { kind: 'void' }
  | { kind: 'float'; size: 4 | 8 | 16; name: string }
  /** A C array; `count` 0 for `T x[]` and flexible array members. */
  | { kind: 'array'; of: DType; count: number; name?: string }
  /** struct or union (def.union); `name` is set when reached through a typedef. */
  | { kind: 'struct'; def: StructDef; name?: string }
  | { kind: 'enum'; def: EnumDef; name?: string }
  /** A function (only meaningful behind a pointer). */
  | { kind: 'function'; name: string };

/** What an @aggregation is in an expression: no value, a type DTrace calls "aggregation". */
export const AGGREGATION_TYPE: DType = { kind: 'function', name: 'aggregation' };
/** What `xlate<T *>(e)` and `xlate<T>(e)` are other than in a member reference: DTrace's
 *  dynamic translated types, refused in each use with these names. */
export const TRANSLATED_POINTER_TYPE: DType = { kind: 'function', name: 'pointer to translated data' };
export const TRANSLATED_TYPE: DType = { kind: 'function', name: 'translated data' };

/** What `count()` and the other aggregating functions are outside `@a = ...`: no value. */
export const AGGREGATING_FUNCTION_TYPE: DType = { kind: 'function', name: 'aggregating function' };

/** A dynamic expression (an aggregation or translated data): no value trace() could record. */
export function isDynamicType(t: DType): boolean {
  return t === AGGREGATION_TYPE || t === TRANSLATED_POINTER_TYPE || t === TRANSLATED_TYPE || t === AGGREGATING_FUNCTION_TYPE;
}

/** One member of a struct or union; offsets from the start of the struct. */
export interface MemberInfo {
  name: string;
  type: DType;
  /** Offset in bits. */
  bitOffset: number;
  /** Width in bits for a bit-field, 0 otherwise. */
  bits: number;
}

/** A struct or union definition, shared by every type that names it. */
export interface StructDef {
  tag: string | null;
  union: boolean;
  /** False for a forward declaration not (yet) defined. */
  complete: boolean;
  size: number;
  align: number;
  /** Direct members in order (anonymous struct/union members have name ''). */
  members(): MemberInfo[];
  /** Where it was defined: 'D' (the program) or a BTF object name ('vmlinux'). */
  origin: string;
}

export interface EnumDef {
  tag: string | null;
  complete: boolean;
  values: Map<string, bigint>;
  origin: string;
}

export const INT: DType = { kind: 'int', size: 4, signed: true, name: 'int' };
export const UINT: DType = { kind: 'int', size: 4, signed: false, name: 'uint_t' };
export const LONG: DType = { kind: 'int', size: 8, signed: true, name: 'int64_t' };
export const ULONG: DType = { kind: 'int', size: 8, signed: false, name: 'uint64_t' };
export const STRING: DType = { kind: 'string' };
export const VOID: DType = { kind: 'void' };

export function intType(size: 1 | 2 | 4 | 8, signed: boolean, name: string): DType {
  return { kind: 'int', size, signed, name };
}

export function typeName(t: DType): string {
  switch (t.kind) {
    case 'int': return t.name;
    case 'string': return 'string';
    case 'pointer': return t.name;
    case 'void': return 'void';
    case 'float': return t.name;
    case 'array': return t.name ?? arrayName(t.of, `[${t.count}]`);
    case 'struct': return t.name ?? `${t.def.union ? 'union' : 'struct'} ${t.def.tag ?? '(anon)'}`;
    case 'enum': return t.name ?? `enum ${t.def.tag ?? '(anon)'}`;
    case 'function': return t.name;
  }
}

/** C spelling of an array type: `char [16]`, `int [2][3]`. */
function arrayName(of: DType, dims: string): string {
  if (of.kind === 'array' && of.name === undefined) return arrayName(of.of, `${dims}[${of.count}]`);
  return `${typeName(of)} ${dims}`;
}

/** C spelling of a pointer to `t`: `char *`, `struct task_struct *`, `int **`. */
export function pointerName(t: DType): string {
  const n = typeName(t);
  return n.endsWith('*') ? `${n}*` : `${n} *`;
}

export function pointerTo(t: DType, userland = false): DType {
  return userland ? { kind: 'pointer', name: pointerName(t), to: t, userland } : { kind: 'pointer', name: pointerName(t), to: t };
}

/** Integers, enums and pointers: the values arithmetic and comparisons accept. */
export function isInteger(t: DType): boolean {
  return t.kind === 'int' || t.kind === 'pointer' || t.kind === 'enum';
}

export function isUnsigned(t: DType): boolean {
  return t.kind === 'pointer' || (t.kind === 'int' && !t.signed);
}

/** Types whose values are addresses of the object, not the object (DTrace's by-ref types). */
export function isByRef(t: DType): boolean {
  return t.kind === 'struct' || t.kind === 'array';
}

/** Scalar in D's sense: integer, enum or pointer (and char arrays are not). */
export function isScalar(t: DType): boolean {
  return t.kind === 'int' || t.kind === 'enum' || t.kind === 'pointer';
}

/**
 * The type of a binary arithmetic, bitwise or relational operation on two integers as DTrace
 * gives it (dt_type_promote): no promotion to int; the operand of greater rank wins, rank being
 * the width in bits plus one if unsigned (so unsigned char + unsigned char is unsigned char, and
 * signed char + unsigned char is unsigned char). Registers hold the unnarrowed 64-bit value;
 * the narrow type shows where a value is recorded or stored.
 */
export function arithmetic(a: DType, b: DType): DType {
  if (a.kind === 'pointer') return a;
  if (b.kind === 'pointer') return b;
  const ia = a.kind === 'enum' ? INT : a, ib = b.kind === 'enum' ? INT : b;
  if (ia.kind !== 'int' || ib.kind !== 'int') return INT;
  const rank = (t: DType & { kind: 'int' }) => t.size * 8 + (t.signed ? 0 : 1);
  return rank(ib) > rank(ia) ? ib : ia;
}

/** C's usual arithmetic conversions, after promotion to at least int (the ternary's type). */
export function cArithmetic(a: DType, b: DType): DType {
  if (a.kind === 'pointer') return a;
  if (b.kind === 'pointer') return b;
  const pa = promote(a), pb = promote(b);
  if (pa.kind !== 'int' || pb.kind !== 'int') return INT;
  if (pa.size !== pb.size) return pa.size > pb.size ? pa : pb;
  if (!pa.signed) return pa;
  return pb.signed ? pa : pb;
}

export function promote(t: DType): DType {
  if (t.kind === 'int' && t.size < 4) return INT;
  if (t.kind === 'enum') return INT;
  return t;
}

/** The DIF type (dtrace_diftype_t) of a value of this D type. */
export function difType(t: DType, strsize: number): DifType {
  switch (t.kind) {
    case 'string':
      return { kind: D.DIF_TYPE_STRING, ckind: 0, flags: D.DIF_TF_BYREF, size: strsize };
    case 'int':
      return { kind: D.DIF_TYPE_CTF, ckind: D.CTF_K_INTEGER, flags: t.signed ? 0 : D.DIF_TF_UNSIGNED, size: t.size };
    case 'pointer':
      return { kind: D.DIF_TYPE_CTF, ckind: D.CTF_K_POINTER, flags: D.DIF_TF_UNSIGNED, size: 8 };
    case 'void':
      return { kind: D.DIF_TYPE_CTF, ckind: 0, flags: 0, size: 0 };
    case 'enum':
      return { kind: D.DIF_TYPE_CTF, ckind: D.CTF_K_ENUM, flags: 0, size: 4 };
    case 'float':
      return { kind: D.DIF_TYPE_CTF, ckind: D.CTF_K_FLOAT, flags: 0, size: t.size };
    case 'function':
      return { kind: D.DIF_TYPE_CTF, ckind: D.CTF_K_FUNCTION, flags: 0, size: 0 };
    case 'array':
      return { kind: D.DIF_TYPE_CTF, ckind: D.CTF_K_ARRAY, flags: D.DIF_TF_BYREF, size: byRefSize(t) };
    case 'struct':
      return { kind: D.DIF_TYPE_CTF, ckind: t.def.union ? D.CTF_K_UNION : D.CTF_K_STRUCT, flags: D.DIF_TF_BYREF, size: t.def.size };
  }
}

function byRefSize(t: DType): number {
  if (t.kind === 'array') return t.count * byRefSize(t.of);
  if (t.kind === 'struct') return t.def.size;
  if (t.kind === 'int' || t.kind === 'float') return t.size;
  if (t.kind === 'enum') return 4;
  return 8;
}

/** The D type of a built-in variable, by the name src/dif/constants.ts gives it. */
function builtinType(name: string): DType {
  switch (name) {
    case 'string': return STRING;
    case 'int': return INT;
    case 'uint_t': return intType(4, false, 'uint_t');
    case 'int64_t': return LONG;
    case 'uint64_t': return ULONG;
    case 'pid_t': case 'id_t': return intType(4, true, name);
    case 'uid_t': case 'gid_t': case 'uint32_t': return intType(4, false, name);
    case 'uintptr_t': return intType(8, false, name);
    // Kernel and D library types, resolved where they are dereferenced.
    case 'struct task_struct *': case 'cpuinfo_t *': return { kind: 'pointer', name };
    default: throw new Error(`built-in variable type ${name} has no D type`);
  }
}

/** Built-in variables a program reads by name: D name -> DIF variable id and D type. */
export const BUILTINS: ReadonlyMap<string, { id: number; type: DType }> = new Map(
  D.BUILTIN_VARIABLES.filter((v) => v.type !== undefined).map((v) => [v.name, { id: v.id, type: builtinType(v.type!) }]),
);
