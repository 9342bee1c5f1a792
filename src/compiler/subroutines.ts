// D subroutine calls: checked against their prototypes (src/dif/subroutines.ts, which also says
// why another kernel's subroutine is refused), then code (arguments on the tuple stack, then CALL).

import { SUBROUTINE_BY_NAME, type SubroutineArg } from '../dif/subroutines.js';
import { encodeCall } from '../dif/builder.js';
import type * as A from './ast.js';
import { type DifoGen, type Val, err } from './codegen.js';
import { constValue } from './aggregations.js';
import { intType, typeName, INT, LONG, STRING, VOID, type DType } from './types.js';

type ArgKind = SubroutineArg;

const VOIDP: DType = { kind: 'pointer', name: 'void *', to: VOID };

/** The D type a subroutine's prototype returns (src/dif/subroutines.ts names it). */
function returnType(name: string): DType {
  switch (name) {
    case 'int': return INT;
    case 'long': return LONG;
    case 'void': return VOID;
    case 'void *': return VOIDP;
    case 'string': return STRING;
    case 'size_t': return intType(8, false, 'size_t');
    case 'major_t': case 'minor_t': case 'uint32_t': return intType(4, false, name);
    case 'uint16_t': return intType(2, false, name);
    case 'uint64_t': return intType(8, false, name);
    default: throw new Error(`subroutine return type ${name} has no D type`);
  }
}

const I = 'integer' as const;

function accepts(kind: ArgKind, t: DType): boolean {
  if (kind === 'string') return t.kind === 'string' || t.kind === 'pointer' || t.kind === 'array';
  return t.kind === 'int' || t.kind === 'pointer' || (t.kind as string) === 'enum';
}

function isZeroConstant(a: A.Expression): boolean {
  return (a.kind === 'Identifier' && a.name === 'NULL' && a.module === undefined) || constValue(a) === 0n;
}

function shownKind(kind: ArgKind): string {
  return kind === 'string' ? 'const char *' : kind === 'pointer' ? 'void *' : 'uint64_t';
}

export function callSubroutine(g: DifoGen, e: A.Call): Val {
  if (e.callee.kind !== 'Identifier') throw err('D_CALL_INVAL', 'invalid function call', e);
  const name = e.callee.name;
  const proto = SUBROUTINE_BY_NAME.get(name);
  if (proto?.unavailable) throw err('D_IDENT_UNSUPP', `subroutine ${name}( ) is not available on Linux: ${proto.unavailable}`, e);
  // copyout() and copyoutstr() are destructive actions (destructive.ts), not values.
  if (!proto || proto.destructive) throw err('D_FUNC_UNDEF', `undefined function name: ${name}`, e);
  const min = proto.args.length - (proto.optional ?? 0);
  if (e.args.length < min || e.args.length > proto.args.length) {
    // libdtrace says "at least N" for any prototype with optional arguments, even for too many.
    const want = proto.optional ? `at least ${min}` : `${proto.args.length}`;
    throw err('D_PROTO_LEN', `${name}( ) prototype mismatch: ${e.args.length} arg${e.args.length === 1 ? '' : 's'} passed, ${want} expected`, e);
  }
  // Evaluate every argument first, then push them together, so nested calls do not interleave.
  const vals = e.args.map((a, i) => {
    const v = g.expr(a);
    // As in C, the integer constant 0 (or NULL) may stand for any pointer (libdtrace's
    // dt_node_is_ptrcompat): strtok(NULL, ",") goes on with the previous string.
    const nullPointer = proto.args[i] !== I && v.type.kind === 'int' && isZeroConstant(a);
    if (!nullPointer && !accepts(proto.args[i], v.type))
      throw err('D_PROTO_ARG', `${name}( ) argument #${i + 1} is incompatible with prototype:\n\tprototype: ${shownKind(proto.args[i])}\n\t argument: ${typeName(v.type)}`, a);
    return v;
  });
  g.pushTuple(vals);
  for (const v of vals) g.release(v.reg);
  const rd = g.alloc(e);
  g.b.emit(encodeCall(proto.subr, rd));
  g.flushTuple();
  return { reg: rd, type: returnType(proto.returns) };
}

