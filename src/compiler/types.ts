// D types as the code generator needs them. (The front-end issue grows this into the full
// C type system with kernel types from BTF.)

import * as D from '../dif/constants.js';
import type { DifType } from '../dof/program.js';

export type DType =
  | { kind: 'int'; size: 1 | 2 | 4 | 8; signed: boolean; name: string }
  | { kind: 'string' }
  | { kind: 'pointer'; name: string }
  | { kind: 'void' };

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
  }
}

export function isInteger(t: DType): boolean {
  return t.kind === 'int' || t.kind === 'pointer';
}

export function isUnsigned(t: DType): boolean {
  return t.kind === 'pointer' || (t.kind === 'int' && !t.signed);
}

/** C's usual arithmetic conversions, after promotion to at least int. */
export function arithmetic(a: DType, b: DType): DType {
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
  return t;
}

/** The DIF type (dtrace_diftype_t) of a value of this D type. */
export function difType(t: DType, strsize: number): DifType {
  switch (t.kind) {
    case 'string':
      return { kind: D.DIF_TYPE_STRING, ckind: 0, flags: D.DIF_TF_BYREF, size: strsize };
    case 'int':
      return { kind: D.DIF_TYPE_CTF, ckind: D.CTF_K_INTEGER, flags: 0, size: t.size };
    case 'pointer':
      return { kind: D.DIF_TYPE_CTF, ckind: D.CTF_K_POINTER, flags: 0, size: 8 };
    case 'void':
      return { kind: D.DIF_TYPE_CTF, ckind: 0, flags: 0, size: 0 };
  }
}

/** Built-in variables: D name -> DIF variable id and D type. */
export const BUILTINS: ReadonlyMap<string, { id: number; type: DType }> = new Map([
  ['arg0', { id: D.DIF_VAR_ARG0, type: LONG }],
  ['arg1', { id: D.DIF_VAR_ARG1, type: LONG }],
  ['arg2', { id: D.DIF_VAR_ARG2, type: LONG }],
  ['arg3', { id: D.DIF_VAR_ARG3, type: LONG }],
  ['arg4', { id: D.DIF_VAR_ARG4, type: LONG }],
  ['arg5', { id: D.DIF_VAR_ARG5, type: LONG }],
  ['arg6', { id: D.DIF_VAR_ARG6, type: LONG }],
  ['arg7', { id: D.DIF_VAR_ARG7, type: LONG }],
  ['arg8', { id: D.DIF_VAR_ARG8, type: LONG }],
  ['arg9', { id: D.DIF_VAR_ARG9, type: LONG }],
  ['pid', { id: D.DIF_VAR_PID, type: intType(4, true, 'pid_t') }],
  ['tid', { id: D.DIF_VAR_TID, type: intType(4, true, 'id_t') }],
  ['ppid', { id: D.DIF_VAR_PPID, type: intType(4, true, 'pid_t') }],
  ['uid', { id: D.DIF_VAR_UID, type: intType(4, false, 'uid_t') }],
  ['gid', { id: D.DIF_VAR_GID, type: intType(4, false, 'gid_t') }],
  ['execname', { id: D.DIF_VAR_EXECNAME, type: STRING }],
  ['timestamp', { id: D.DIF_VAR_TIMESTAMP, type: ULONG }],
  ['walltimestamp', { id: D.DIF_VAR_WALLTIMESTAMP, type: LONG }],
  ['probeprov', { id: D.DIF_VAR_PROBEPROV, type: STRING }],
  ['probemod', { id: D.DIF_VAR_PROBEMOD, type: STRING }],
  ['probefunc', { id: D.DIF_VAR_PROBEFUNC, type: STRING }],
  ['probename', { id: D.DIF_VAR_PROBENAME, type: STRING }],
  ['epid', { id: D.DIF_VAR_EPID, type: intType(4, false, 'uint_t') }],
  ['id', { id: D.DIF_VAR_ID, type: intType(4, false, 'uint_t') }],
  ['curthread', { id: D.DIF_VAR_CURTHREAD, type: { kind: 'pointer', name: 'struct task_struct *' } }],
]);
