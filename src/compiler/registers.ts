// regs[] and uregs[]: DTrace's built-in register arrays. The index is an integer constant, usually
// one of the R_* inlines of lib/dtrace/regs.d; the value is read at the probe by LDGA of
// DIF_VAR_REGS or DIF_VAR_UREGS. On x86-64 the indices are DTrace for Linux's: 0-20 the words of
// the kernel's struct pt_regs (r15 ... ss), then ds, es, fs, gs and trapno.

import * as D from '../dif/constants.js';
import { encodeLda } from '../dif/builder.js';
import type * as A from './ast.js';
import { DifoGen, type Val, err } from './codegen.js';
import { ULONG, typeName } from './types.js';

/** How many registers regs[] and uregs[] have (pt_regs' 21 words, ds, es, fs, gs, trapno). */
export const REGISTER_COUNT = 26;

const ARRAYS: ReadonlyMap<string, number> = new Map([['regs', D.DIF_VAR_REGS], ['uregs', D.DIF_VAR_UREGS]]);

export function isRegisterReference(e: A.Index): boolean {
  return e.base.kind === 'Identifier' && e.base.module === undefined && ARRAYS.has(e.base.name);
}

/** `regs[N]` or `uregs[N]`: a uint64_t. */
export function registerElement(g: DifoGen, e: A.Index): Val {
  const name = (e.base as A.Identifier).name;
  if (e.keys.length !== 1)
    throw err('D_PROTO_LEN', `${name}[ ] prototype mismatch: ${e.keys.length} arg${e.keys.length === 1 ? ' ' : 's '}passed, 1 expected`, e);
  let index: bigint;
  try {
    index = g.cg.types.constant(e.keys[0]);
  } catch {
    const t = new DifoGen(g.cg, g.opts).expr(e.keys[0]).type;
    throw err('D_PROTO_ARG', `${name}[ ] argument #1 is incompatible with prototype:\n\tprototype: integer constant\n\t argument: ${typeName(t)}`, e);
  }
  // As DTrace for Linux, a constant index past the last register fails the compile.
  if (index < 0n || index >= BigInt(REGISTER_COUNT)) throw err('D_UNKNOWN', `${name}[]: index out of bounds (${index})`, e);
  const r = g.alloc(e);
  g.b.setx(index, r);
  g.b.emit(encodeLda(D.DIF_OP_LDGA, ARRAYS.get(name)!, r, r));
  return { reg: r, type: ULONG };
}
