// A DIF object and its tables (dtrace_difo_t and what it holds): what the compiler's code generator
// builds, DOF carries, and the reference machine and the Linux translator run.

/** A DIF type (dtrace_diftype_t). */
export interface DifType {
  kind: number; // DIF_TYPE_CTF (0) or DIF_TYPE_STRING (1)
  ckind: number; // CTF kind (CTF_K_INTEGER = 1, CTF_K_POINTER = 3, ...); 0 when unknown
  flags: number; // DIF_TF_BYREF (1) when the value is passed by reference
  size: number; // size in bytes (strsize for strings)
}

/** A DIF variable table entry (dtrace_difv_t). */
export interface DifVar {
  name: string;
  id: number; // DIF_VAR_* for built-ins, >= DIF_VAR_OTHER_UBASE (0x500) for user scalars
  kind: number; // DIFV_KIND_ARRAY (0) or DIFV_KIND_SCALAR (1)
  scope: number; // DIFV_SCOPE_GLOBAL (0), THREAD (1), LOCAL (2)
  flags: number; // DIFV_F_REF (1) | DIFV_F_MOD (2)
  type: DifType;
}

/** A DIF object (dtrace_difo_t): one predicate or one action's expression. */
export interface Difo {
  insns: Uint32Array; // dif_instr_t, 32-bit instructions
  strtab: Buffer; // NUL-separated strings, referenced by offset (SETS, variable names)
  inttab: bigint[]; // 64-bit integer constants (SETX)
  vartab: DifVar[];
  rtype: DifType; // type of the value RET returns
}

/**
 * A clause as DIF sees it: its predicate and its actions' DIF objects, in order. An ECB
 * description (src/dof/program.ts) is one.
 */
export interface DifClause {
  predicate: Difo | null;
  actions: readonly { difo: Difo | null }[];
}
