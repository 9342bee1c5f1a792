// D subroutine calls: checked against their prototypes (src/dif/subroutines.ts, which also says
// why another kernel's subroutine is refused), then code (arguments on the tuple stack, then CALL).

import { ACTION_PROTOTYPES, SUBROUTINE_BY_NAME, actionArity, argKind, type SubroutineArg } from '../dif/subroutines.js';
import { encodeCall } from '../dif/builder.js';
import type * as A from './ast.js';
import { type DifoGen, type Val, err } from './codegen.js';
import { protoArgMessage, protoLenMessage } from './errors.js';
import { AGG_FUNCTION_NAMES, constValue } from './aggregations.js';
import { BUILTIN_IDENTS } from './ctypes.js';
import { AGGREGATING_FUNCTION_TYPE, intType, typeName, INT, LONG, STRING, VOID, type DType } from './types.js';

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

function accepts(proto: SubroutineArg, t: DType): boolean {
  const kind = argKind(proto);
  if (kind === 'string') return t.kind === 'string' || t.kind === 'pointer' || t.kind === 'array';
  // void * takes any pointer, a string (a char array) or an address held in an integer; a typed
  // pointer (inet_ntoa's ipaddr_t *) takes pointers and arrays only, or the constant 0.
  if (kind === 'pointer' && proto !== 'void *') return t.kind === 'pointer' || t.kind === 'array';
  if (proto === 'void *') return t.kind === 'int' || t.kind === 'pointer' || t.kind === 'array' || t.kind === 'string' || (t.kind as string) === 'enum';
  return t.kind === 'int' || t.kind === 'pointer' || (t.kind as string) === 'enum';
}

function isZeroConstant(a: A.Expression): boolean {
  return (a.kind === 'Identifier' && a.name === 'NULL' && a.module === undefined) || constValue(a) === 0n;
}

/**
 * alloca() of a constant larger than scratch memory can ever hold: refused when compiled. Without
 * -x scratchsize, each alloca() gets a strsize slot (device/linux/tstrings.ts), as DTrace for Linux's
 * default scratchsize is 256 bytes.
 */
function allocaSize(g: DifoGen, e: A.Call): void {
  const n = constValue(e.args[0]);
  const set = g.opts.option?.('scratchsize');
  const limit = set !== undefined && set !== 'unset' && Number.isFinite(Number(set)) ? Number(set) : g.opts.strsize;
  if (n !== null && BigInt.asUintN(64, n) > BigInt(limit))
    throw err('D_ALLOCA_SIZE', `alloca(${BigInt.asUintN(64, n)}) size larger than scratchsize ${limit}`, e);
}

export function callSubroutine(g: DifoGen, e: A.Call): Val {
  const callee = e.callee;
  if (callee.kind === 'Aggregation') throw err('D_FUNC_UNDEF', `undefined function name: @${callee.name}`, e);
  if (callee.kind !== 'Identifier') throw err('D_FUNC_IDENT', 'function designator is not of function type', e);
  const name = callee.name;
  if (callee.module !== undefined) throw err('D_FUNC_UNDEF', `undefined function name: \`${name}`, e);
  const proto = SUBROUTINE_BY_NAME.get(name);
  if (proto?.unavailable) throw err('D_IDENT_UNSUPP', `subroutine ${name}( ) is not available on Linux: ${proto.unavailable}`, e);
  if (!proto && BUILTIN_IDENTS.has(name) && name !== 'progenyof') {
    const kind = name === 'args' ? 'associative array' : name === 'uregs' ? 'array' : 'scalar';
    throw err('D_FUNC_IDKIND', `${kind} '${name}' may not be referenced as a function`, e);
  }
  if (!proto && (g.cg.types.inlines.has(name) || g.cg.types.enumerators.has(name)))
    throw err('D_FUNC_IDENT', 'function designator is not of function type', e);
  const action = proto ? undefined : ACTION_PROTOTYPES.get(name);
  if (action) {
    // An action is a function returning void to DTrace's parser: its count is checked, and each
    // use of the void value is then refused where it is used (?:, operators, assignments).
    const mismatch = protoLenMessage(name, e.args.length, ...actionArity(action));
    if (mismatch) throw err('D_PROTO_LEN', mismatch, e);
    return { reg: 0, type: VOID };
  }
  // count() and the like outside `@a = ...`: a dynamic value each use refuses, as DTrace does.
  if (!proto && AGG_FUNCTION_NAMES.has(name)) return { reg: 0, type: AGGREGATING_FUNCTION_TYPE };
  // copyout() and copyoutstr() are destructive actions (destructive.ts), not values.
  // libdtrace looks the name up as it reduces the call, on the closing ')'.
  if (!proto || proto.destructive) throw err('D_FUNC_UNDEF', `undefined function name: ${name}`, { ...e, dnLine: e.closeLine });
  const min = proto.args.length - (proto.optional ?? 0);
  const mismatch = protoLenMessage(name, e.args.length, min, proto.args.length);
  if (mismatch) throw err('D_PROTO_LEN', mismatch, e);
  if (name === 'alloca') allocaSize(g, e);
  // Evaluate every argument first, then push them together, so nested calls do not interleave.
  const vals = e.args.map((a, i) => {
    const v = g.expr(a);
    // As in C, the integer constant 0 (or NULL) may stand for any pointer (libdtrace's
    // dt_node_is_ptrcompat): strtok(NULL, ",") goes on with the previous string.
    const nullPointer = argKind(proto.args[i]) !== 'integer' && v.type.kind === 'int' && isZeroConstant(a);
    if (!nullPointer && !accepts(proto.args[i], v.type))
      throw err('D_PROTO_ARG', protoArgMessage(name, i + 1, proto.args[i], typeName(v.type)), e);
    return v;
  });
  g.pushTuple(vals);
  for (const v of vals) g.release(v.reg);
  const rd = g.alloc(e);
  g.b.emit(encodeCall(proto.subr, rd));
  g.flushTuple();
  return { reg: rd, type: returnType(proto.returns) };
}

