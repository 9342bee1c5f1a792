// D subroutines: prototypes and code generation (arguments on the tuple stack, then CALL).
//
// Prototypes follow libdtrace's identifier table (dt_open.c): argument kinds, optional trailing
// arguments, and return types. Subroutines that only make sense on illumos/FreeBSD kernels are
// refused at compile time with the reason.

import * as D from '../dif/constants.js';
import { encodeCall } from '../dif/builder.js';
import type * as A from './ast.js';
import { type DifoGen, type Val, err } from './codegen.js';
import { intType, typeName, INT, LONG, STRING, VOID, type DType } from './types.js';
import { isNullConstant } from './typed-expr.js';

/** string: a D string or a char pointer/array; integer: an integer or a pointer; pointer: the same. */
type ArgKind = 'string' | 'integer' | 'pointer';

interface Prototype {
  subr: number;
  returns: DType;
  args: ArgKind[];
  optional?: number; // trailing arguments that may be left out
}

const SIZE_T = intType(8, false, 'size_t');
const VOIDP: DType = { kind: 'pointer', name: 'void *', to: VOID };

const S = 'string' as const, I = 'integer' as const, P = 'pointer' as const;

/** Subroutines by D name. */
export const SUBROUTINES: ReadonlyMap<string, Prototype> = new Map<string, Prototype>([
  ['rand', { subr: D.DIF_SUBR_RAND, returns: INT, args: [] }],
  ['speculation', { subr: D.DIF_SUBR_SPECULATION, returns: INT, args: [] }],
  ['copyin', { subr: D.DIF_SUBR_COPYIN, returns: VOIDP, args: [I, I] }],
  ['copyinstr', { subr: D.DIF_SUBR_COPYINSTR, returns: STRING, args: [I, I], optional: 1 }],
  ['copyinto', { subr: D.DIF_SUBR_COPYINTO, returns: VOID, args: [I, I, P] }],
  ['progenyof', { subr: D.DIF_SUBR_PROGENYOF, returns: INT, args: [I] }],
  ['strlen', { subr: D.DIF_SUBR_STRLEN, returns: SIZE_T, args: [S] }],
  ['alloca', { subr: D.DIF_SUBR_ALLOCA, returns: VOIDP, args: [I] }],
  ['bcopy', { subr: D.DIF_SUBR_BCOPY, returns: VOID, args: [P, P, I] }],
  ['getmajor', { subr: D.DIF_SUBR_GETMAJOR, returns: intType(4, false, 'major_t'), args: [I] }],
  ['getminor', { subr: D.DIF_SUBR_GETMINOR, returns: intType(4, false, 'minor_t'), args: [I] }],
  ['strjoin', { subr: D.DIF_SUBR_STRJOIN, returns: STRING, args: [S, S] }],
  ['lltostr', { subr: D.DIF_SUBR_LLTOSTR, returns: STRING, args: [I, I], optional: 1 }],
  ['basename', { subr: D.DIF_SUBR_BASENAME, returns: STRING, args: [S] }],
  ['dirname', { subr: D.DIF_SUBR_DIRNAME, returns: STRING, args: [S] }],
  ['cleanpath', { subr: D.DIF_SUBR_CLEANPATH, returns: STRING, args: [S] }],
  ['strchr', { subr: D.DIF_SUBR_STRCHR, returns: STRING, args: [S, I] }],
  ['strrchr', { subr: D.DIF_SUBR_STRRCHR, returns: STRING, args: [S, I] }],
  ['strstr', { subr: D.DIF_SUBR_STRSTR, returns: STRING, args: [S, S] }],
  ['strtok', { subr: D.DIF_SUBR_STRTOK, returns: STRING, args: [S, S] }],
  ['substr', { subr: D.DIF_SUBR_SUBSTR, returns: STRING, args: [S, I, I], optional: 1 }],
  ['index', { subr: D.DIF_SUBR_INDEX, returns: INT, args: [S, S, I], optional: 1 }],
  ['rindex', { subr: D.DIF_SUBR_RINDEX, returns: INT, args: [S, S, I], optional: 1 }],
  ['htons', { subr: D.DIF_SUBR_HTONS, returns: intType(2, false, 'uint16_t'), args: [I] }],
  ['htonl', { subr: D.DIF_SUBR_HTONL, returns: intType(4, false, 'uint32_t'), args: [I] }],
  ['htonll', { subr: D.DIF_SUBR_HTONLL, returns: intType(8, false, 'uint64_t'), args: [I] }],
  ['ntohs', { subr: D.DIF_SUBR_NTOHS, returns: intType(2, false, 'uint16_t'), args: [I] }],
  ['ntohl', { subr: D.DIF_SUBR_NTOHL, returns: intType(4, false, 'uint32_t'), args: [I] }],
  ['ntohll', { subr: D.DIF_SUBR_NTOHLL, returns: intType(8, false, 'uint64_t'), args: [I] }],
  ['inet_ntop', { subr: D.DIF_SUBR_INET_NTOP, returns: STRING, args: [I, P] }],
  ['inet_ntoa', { subr: D.DIF_SUBR_INET_NTOA, returns: STRING, args: [P] }],
  ['inet_ntoa6', { subr: D.DIF_SUBR_INET_NTOA6, returns: STRING, args: [P] }],
  ['toupper', { subr: D.DIF_SUBR_TOUPPER, returns: STRING, args: [S] }],
  ['tolower', { subr: D.DIF_SUBR_TOLOWER, returns: STRING, args: [S] }],
  ['json', { subr: D.DIF_SUBR_JSON, returns: STRING, args: [S, S] }],
  ['strtoll', { subr: D.DIF_SUBR_STRTOLL, returns: LONG, args: [S, I], optional: 1 }],
]);

/** Subroutines of other kernels, with why they cannot apply on Linux. */
const UNAVAILABLE: ReadonlyMap<string, string> = new Map([
  ...['mutex_owned', 'mutex_owner', 'mutex_type_adaptive', 'mutex_type_spin'].map((n) =>
    [n, 'it inspects illumos kernel mutexes'] as [string, string]),
  ...['rw_read_held', 'rw_write_held', 'rw_iswriter'].map((n) =>
    [n, 'it inspects illumos kernel reader/writer locks'] as [string, string]),
  ...['sx_shared_held', 'sx_exclusive_held', 'sx_isexclusive'].map((n) =>
    [n, 'it inspects FreeBSD sx locks'] as [string, string]),
  ['msgsize', 'it walks STREAMS message blocks'],
  ['msgdsize', 'it walks STREAMS message blocks'],
  ['ddi_pathname', 'it walks the illumos device tree'],
  ['getf', 'it returns an illumos file_t'],
  ['memref', 'it is specific to FreeBSD'],
  ['memstr', 'it is specific to FreeBSD'],
  ['d_path', 'the kernel offers bpf_d_path() only to fentry/LSM programs, which this kernel refuses'],
]);

function accepts(kind: ArgKind, t: DType): boolean {
  if (kind === 'string') return t.kind === 'string' || t.kind === 'pointer' || t.kind === 'array';
  return t.kind === 'int' || t.kind === 'pointer' || (t.kind as string) === 'enum';
}

function shownKind(kind: ArgKind): string {
  return kind === 'string' ? 'const char *' : kind === 'pointer' ? 'void *' : 'uint64_t';
}

export function callSubroutine(g: DifoGen, e: A.Call): Val {
  if (e.callee.kind !== 'Identifier') throw err('D_CALL_INVAL', 'invalid function call', e);
  const name = e.callee.name;
  const why = UNAVAILABLE.get(name);
  if (why) throw err('D_IDENT_UNSUPP', `subroutine ${name}( ) is not available on Linux: ${why}`, e);
  const proto = SUBROUTINES.get(name);
  if (!proto) throw err('D_FUNC_UNDEF', `undefined function name: ${name}`, e);
  const min = proto.args.length - (proto.optional ?? 0);
  if (e.args.length < min || e.args.length > proto.args.length) {
    // libdtrace says "at least N" for any prototype with optional arguments, even for too many.
    const want = proto.optional ? `at least ${min}` : `${proto.args.length}`;
    throw err('D_PROTO_LEN', `${name}( ) prototype mismatch: ${e.args.length} arg${e.args.length === 1 ? '' : 's'} passed, ${want} expected`, e);
  }
  // Evaluate every argument first, then push them together, so nested calls do not interleave.
  const vals = e.args.map((a, i) => {
    const v = g.expr(a);
    // The null pointer constant (0, NULL) passes as any pointer, `const char *` included, as
    // dt_node_is_argcompat allows: strtok(NULL, " ") goes on with the previous string.
    if (!accepts(proto.args[i], v.type) && !(proto.args[i] === S && isNullConstant(a)))
      throw err('D_PROTO_ARG', `${name}( ) argument #${i + 1} is incompatible with prototype:\n\tprototype: ${shownKind(proto.args[i])}\n\t argument: ${typeName(v.type)}`, a);
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
