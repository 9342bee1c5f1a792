// D subroutines: prototypes and code generation (arguments on the tuple stack, then CALL).

import * as D from '../dif/constants.js';
import { encodeCall } from '../dif/builder.js';
import type * as A from './ast.js';
import { type DifoGen, type Val, err } from './codegen.js';
import { intType, typeName, STRING, type DType } from './types.js';

type ArgKind = 'string' | 'integer' | 'any';

interface Prototype {
  subr: number;
  returns: DType;
  args: ArgKind[];
  optional?: number; // trailing arguments that may be left out
}

const SIZE_T = intType(8, false, 'size_t');

/** Subroutines by D name. */
export const SUBROUTINES: ReadonlyMap<string, Prototype> = new Map([
  ['strlen', { subr: D.DIF_SUBR_STRLEN, returns: SIZE_T, args: ['string'] }],
]);

function accepts(kind: ArgKind, t: DType): boolean {
  if (kind === 'any') return t.kind !== 'void';
  if (kind === 'string') return t.kind === 'string';
  return t.kind === 'int' || t.kind === 'pointer';
}

export function callSubroutine(g: DifoGen, e: A.Call): Val {
  if (e.callee.kind !== 'Identifier') throw err('D_CALL_INVAL', 'invalid function call', e);
  const name = e.callee.name;
  const proto = SUBROUTINES.get(name);
  if (!proto) throw err('D_IDENT_UNDEF', `failed to resolve ${name}: Unknown function name`, e);
  const min = proto.args.length - (proto.optional ?? 0);
  if (e.args.length < min || e.args.length > proto.args.length) {
    const want = proto.optional ? `${min}-${proto.args.length}` : `${proto.args.length}`;
    throw err('D_PROTO_LEN', `${name}( ) prototype mismatch: ${e.args.length} arg${e.args.length === 1 ? '' : 's'} passed, ${want} expected`, e);
  }
  // Evaluate every argument first, then push them together, so nested calls do not interleave.
  const vals = e.args.map((a, i) => {
    const v = g.expr(a);
    if (!accepts(proto.args[i], v.type))
      throw err('D_PROTO_ARG', `${name}( ) argument #${i + 1} is incompatible with prototype:\n\tprototype: ${proto.args[i] === 'string' ? 'string' : 'uint64_t'}\n\t argument: ${typeName(v.type)}`, a);
    return v;
  });
  g.pushTuple(vals);
  for (const v of vals) g.release(v.reg);
  const rd = g.alloc(e);
  g.b.emit(encodeCall(proto.subr, rd));
  g.flushTuple();
  return { reg: rd, type: proto.returns };
}

export { STRING };
