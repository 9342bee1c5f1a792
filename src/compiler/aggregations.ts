// Code generation for aggregations: `@name[keys] = func(args)` statements and the actions that
// name an aggregation (printa, clear, trunc, normalize, denormalize).
//
// Conventions (libdtrace's, which the device and consumer rely on):
// - an aggregating action is preceded by one DIFEXPR action per key; an increment argument
//   (quantize(x, incr), lquantize(x, lo, hi, step, incr), llquantize(..., incr)) is one more
//   DIFEXPR of void type after the keys, and ntuple counts it too;
// - lquantize/llquantize parameters travel packed in the action's arg;
// - printa is one DTRACEACT_PRINTA action per aggregation, each a DIFO returning the
//   aggregation id, all carrying the format and the same uarg (the statement);
// - clear/trunc/normalize/denormalize are DTRACEACT_LIBACT actions whose arg says which; the
//   first returns the aggregation id, trunc and normalize add a second with their operand.

import * as D from '../dif/constants.js';
import type { ActionDescription } from '../dof/program.js';
import type { Difo } from '../dif/difo.js';
import type * as A from './ast.js';
import { type CodeGenerator, type CodegenOptions, DifoGen, checkTuple, err, printfArgType } from './codegen.js';
import { AGGREGATION_TYPE, isDynamicType, INT, LONG, VOID, isInteger, typeName, type DType } from './types.js';
import { ACTION_PROTOTYPES } from '../dif/subroutines.js';
import { protoArgMessage } from './errors.js';
import type { TypeScope } from './ctypes.js';
import { type ArgType, validateFormat } from '../abi/printf-format.js';
import { STACK_TYPE, isStackCall, stackAction } from './stacks.js';

interface AggInfo {
  id: number;
  func: string;
  nkeys: number;
  keyTypes: DType[];
  /** The line of its first assignment (D_AGG_REDEF names it). */
  line: number;
  /** lquantize/llquantize: the packed parameters of the first use. */
  arg?: bigint;
}

/** Aggregating functions: their action kind and how many arguments they take. */
const AGG_FUNCS: Record<string, { kind: number; min: number; max: number }> = {
  count: { kind: D.DTRACEAGG_COUNT, min: 0, max: 0 },
  sum: { kind: D.DTRACEAGG_SUM, min: 1, max: 1 },
  min: { kind: D.DTRACEAGG_MIN, min: 1, max: 1 },
  max: { kind: D.DTRACEAGG_MAX, min: 1, max: 1 },
  avg: { kind: D.DTRACEAGG_AVG, min: 1, max: 1 },
  stddev: { kind: D.DTRACEAGG_STDDEV, min: 1, max: 1 },
  quantize: { kind: D.DTRACEAGG_QUANTIZE, min: 1, max: 2 },
  lquantize: { kind: D.DTRACEAGG_LQUANTIZE, min: 3, max: 5 },
  llquantize: { kind: D.DTRACEAGG_LLQUANTIZE, min: 5, max: 6 },
};
/** The aggregating functions' names. */
export const AGG_FUNCTION_NAMES: ReadonlySet<string> = new Set(Object.keys(AGG_FUNCS));


const LIBACTS: Record<string, number> = {
  clear: D.DT_ACT_CLEAR, trunc: D.DT_ACT_TRUNC, normalize: D.DT_ACT_NORMALIZE, denormalize: D.DT_ACT_DENORMALIZE,
};

type Pos = { line: number; column: number; file?: string };

export class AggregationCodegen {
  private aggs = new Map<string, AggInfo>();
  private printaStatements = 0;

  constructor(private cg: CodeGenerator, private opts: CodegenOptions) {}

  /** `@name[keys] = func(args);` */
  assign(target: A.Aggregation, asg: A.Assignment, actions: ActionDescription[]): void {
    const name = target.name;
    const shown = aggShown(name);
    // `@a += 1` is a compound assignment to a variable, which @a is not; `@a[k] += 1` one to
    // an element of no known size (dt_cook_op2).
    if (asg.op !== '=' && (target.keys?.length ?? 0) > 0)
      throw err('D_OP_VFPTR', `operator ${asg.op} requires left-hand scalar operand of known size`, asg);
    if (asg.op !== '=') throw err('D_VAR_UNDEF', `${shown} has not yet been declared or assigned`, target);
    const call = asg.value;
    if (call.kind !== 'Call' || call.callee.kind !== 'Identifier' || !(call.callee.name in AGG_FUNCS))
      throw err('D_AGG_FUNC', `${shown} must be assigned the result of an aggregating function`, asg);
    const func = call.callee.name;
    const spec = AGG_FUNCS[func];
    const n = call.args.length;
    if (n < spec.min || n > spec.max) {
      const want = spec.min === spec.max ? `${spec.min}` : n < spec.min ? `at least ${spec.min}` : `at most ${spec.max}`;
      const e = err('D_PROTO_LEN', `${func}( ) prototype mismatch: ${n} arg${n === 1 ? '' : 's'} passed, ${want} expected`, call);
      // Too many for optional arguments is the code generator's finding: no region is named.
      if (spec.min !== spec.max && n > spec.max) e.region = '';
      throw e;
    }

    const keys = target.keys ?? [];
    let info = this.aggs.get(name);
    if (!info) {
      info = { id: this.aggs.size + 1, func, nkeys: keys.length, keyTypes: [], line: asg.line };
      this.aggs.set(name, info);
    } else if (info.nkeys !== keys.length) {
      const n = keys.length;
      throw err('D_PROTO_LEN', `${shown}[ ] prototype mismatch: ${n} key${n === 1 ? '' : 's'} passed, ${info.nkeys} expected`, target);
    } else if (info.func !== func) {
      throw err('D_AGG_REDEF', `aggregation redefined: ${shown}\n\t current: ${shown} = ${func}( )\n\tprevious: ${shown} = ${info.func}( ) : line ${info.line}`, asg);
    }

    // Parameters first: they are checked before any code is generated, as DTrace does.
    let arg = 0n;
    let incr: A.Expression | undefined;
    if (func === 'lquantize') {
      arg = this.lquantizeArg(call, info);
      incr = call.args[4];
    } else if (func === 'llquantize') {
      arg = this.llquantizeArg(call, info);
      incr = call.args[5];
    } else if (func === 'quantize') {
      incr = call.args[1];
    }

    const keyTypes: DType[] = [];
    for (const k of keys) {
      if (isStackCall(k)) {
        const sk = stackAction(this.cg, this.opts, k);
        keyTypes.push(sk.type);
        actions.push(sk.action);
        continue;
      }
      const g = new DifoGen(this.cg, this.opts);
      const v = g.expr(k);
      if (v.type.kind === 'void' || isDynamicType(v.type))
        throw err('D_KEY_TYPE', `${typeName(v.type)} expression may not be used as aggregation index: key #${keyTypes.length + 1}`, target);
      keyTypes.push(v.type);
      actions.push(plain(D.DTRACEACT_DIFEXPR, g.finish(v, v.type)));
    }
    if (info.keyTypes.length === 0) info.keyTypes = keyTypes;
    else {
      // A string key where the first use had another type (or the reverse) is refused, as
      // dt_node_is_argcompat refuses it for any keyed variable.
      keyTypes.forEach((t, i) => {
        const want = info.keyTypes[i];
        if (want && (want.kind === 'string') !== (t.kind === 'string'))
          throw err('D_PROTO_ARG', `${shown}[ ] key #${i + 1} is incompatible with prototype:\n\tprototype: ${typeName(want)}\n\t      key: ${typeName(t)}`, target);
      });
    }

    checkTuple(this.opts, keys.length);
    let ntuple = keys.length;
    if (incr) {
      const g = new DifoGen(this.cg, this.opts);
      const v = g.expr(incr);
      if (!isScalar(v.type)) {
        const argmax = spec.max;
        throw err('D_PROTO_ARG', `${func}( ) increment value (argument #${argmax}) must be of scalar type`, call);
      }
      // The value rides along; the void type keeps it out of the key.
      actions.push(plain(D.DTRACEACT_DIFEXPR, g.finish(v, VOID)));
      ntuple++;
    }

    let difo: Difo | null = null;
    if (spec.min > 0) {
      const g = new DifoGen(this.cg, this.opts);
      const v = g.expr(call.args[0]);
      if (!isScalar(v.type))
        throw err('D_AGG_SCALAR', `${func}( ) argument #1 must be of scalar type`, call);
      difo = g.finish(v, LONG);
    }
    actions.push({ kind: spec.kind, difo, ntuple, arg, uarg: BigInt(info.id), aggName: name });
  }

  /** Has an aggregation of this name been assigned (so far in the program)? */
  declared(name: string): boolean {
    return this.aggs.has(name);
  }

  /** printa, clear, trunc, normalize, denormalize; false when `name` is none of them. */
  action(call: A.Call, name: string, actions: ActionDescription[]): boolean {
    if (name === 'printa') {
      this.printa(call, actions);
      return true;
    }
    if (!(name in LIBACTS)) return false;
    const args = call.args;
    const argc = args.length;
    const tagBase = name === 'denormalize' ? 'NORMALIZE' : name.toUpperCase();
    // The count was checked against ACTION_PROTOTYPES (codegen.ts) before this.
    const info = this.aggregationArg(args[0], name, 1, `D_${tagBase}_AGGARG`, call);
    const act = LIBACTS[name];
    actions.push({ ...plain(D.DTRACEACT_LIBACT, this.constant(info.id, call)), arg: BigInt(act) });
    if (name === 'normalize' || name === 'trunc') {
      let difo: Difo;
      if (argc === 2) {
        const g = new DifoGen(this.cg, this.opts);
        const v = g.expr(args[1]);
        if (!isScalar(v.type))
          throw err('D_PROTO_ARG', protoArgMessage(name, 2, ACTION_PROTOTYPES.get(name)!.args[1], typeName(v.type)), call);
        difo = g.finish(v, LONG);
      } else {
        difo = this.constant(0, call);
      }
      actions.push({ ...plain(D.DTRACEACT_LIBACT, difo), arg: BigInt(act) });
    }
    return true;
  }

  private printa(call: A.Call, actions: ActionDescription[]): void {
    const args = call.args;
    let format: string | undefined;
    let first = 0;
    if (args[0]?.kind === 'StringLiteral') {
      format = args[0].value;
      first = 1;
    }
    const argr = first + 1;
    if (args.length < argr)
      throw err('D_PRINTA_PROTO', `printa( ) prototype mismatch: ${args.length} args passed, ${argr} expected`, call);
    const infos: AggInfo[] = [];
    for (let i = first; i < args.length; i++) {
      const info = this.aggregationArg(args[i], 'printa', i + 1, 'D_PRINTA_AGGARG', call);
      if (infos.length > 0) this.sameKeys(infos[0], info, args[first], args[i], call);
      infos.push(info);
    }
    if (format !== undefined) {
      const problem = validateFormat(format, infos[0].keyTypes.map(argType), {
        func: 'printa', argOffset: 1, aggregation: true, aggAction: infos[0].func,
        haveTarget: (this.opts.macros.get('target') ?? 0n) !== 0n,
      });
      if (problem) throw err(problem.tag, problem.message, call);
    }
    const uarg = BigInt(++this.printaStatements);
    for (const info of infos) {
      actions.push({ ...plain(D.DTRACEACT_PRINTA, this.constant(info.id, call)), uarg, format });
    }
  }

  /** printa() of several aggregations needs matching key signatures (dt_printa_validate). */
  private sameKeys(a: AggInfo, b: AggInfo, an: A.Expression, bn: A.Expression, at: Pos): void {
    const l = (an as A.Aggregation).name, r = (bn as A.Aggregation).name;
    if (a.nkeys !== b.nkeys) {
      const keys = (n: number) => `${n} key${n === 1 ? '' : 's'}`;
      throw err('D_PRINTA_AGGKEY', `printa( ): @${l} and @${r} do not have matching key signatures: @${l} has ${keys(a.nkeys)}, @${r} has ${keys(b.nkeys)}`, at);
    }
    for (let i = 0; i < a.keyTypes.length && i < b.keyTypes.length; i++) {
      const lt = a.keyTypes[i], rt = b.keyTypes[i];
      const compatible = (isInteger(lt) && isInteger(rt)) || typeName(lt) === typeName(rt);
      if (!compatible) {
        throw err('D_PRINTA_AGGPROTO', `printa( ): @${r}[ ] key #${i + 1} is incompatible with @${l}:\n` +
          `${l.padStart(9)} key #${i + 1}: ${typeName(lt)}\n${r.padStart(9)} key #${i + 1}: ${typeName(rt)}`, at);
      }
    }
  }

  private aggregationArg(e: A.Expression | undefined, func: string, argn: number, badArg: string, at: Pos): AggInfo {
    if (!e || e.kind !== 'Aggregation' || (e.keys !== null && e.keys !== undefined)) {
      throw err(badArg, `${func}( ) argument #${argn} is incompatible with prototype:\n\tprototype: aggregation\n\t argument: ${e ? describeArg(e) : 'void'}`, at);
    }
    const info = this.aggs.get(e.name);
    // An aggregation no clause assigns is an unknown name to DTrace, whichever action names it.
    if (!info) throw err('D_IDENT_UNDEF', `failed to resolve ${aggShown(e.name)}: Unknown variable name`, at);
    return info;
  }

  /** A DIFO returning a constant (dt_action_difconst). */
  private constant(value: number, at: A.Expression | A.Call): Difo {
    const g = new DifoGen(this.cg, this.opts);
    const r = g.alloc(at as A.Expression);
    g.b.setx(BigInt(value), r);
    return g.finish({ reg: r, type: INT }, INT);
  }

  private lquantizeArg(call: A.Call, info: AggInfo): bigint {
    const [, a1, a2, a3] = call.args;
    const base = constValue(a1, this.cg.types);
    if (base === null) throw err('D_LQUANT_BASETYPE', 'lquantize( ) argument #1 must be an integer constant', a1);
    if (base < -0x80000000n || base > 0x7fffffffn) throw err('D_LQUANT_BASEVAL', 'lquantize( ) argument #1 must be a 32-bit quantity', a1);
    const limit = constValue(a2, this.cg.types);
    if (limit === null) throw err('D_LQUANT_LIMTYPE', 'lquantize( ) argument #2 must be an integer constant', a2);
    if (limit < -0x80000000n || limit > 0x7fffffffn) throw err('D_LQUANT_LIMVAL', 'lquantize( ) argument #2 must be a 32-bit quantity', a2);
    if (limit <= base) throw err('D_LQUANT_MISMATCH', 'lquantize( ) base (argument #1) must be less than limit (argument #2)', call);
    let step = 1n;
    if (a3) {
      const s = constValue(a3, this.cg.types);
      if (s === null || s <= 0n) throw err('D_LQUANT_STEPTYPE', 'lquantize( ) argument #3 must be a non-zero positive integer constant', a3);
      if (s > 0xffffn) throw err('D_LQUANT_STEPVAL', 'lquantize( ) argument #3 must be a 16-bit quantity', a3);
      step = s;
    }
    const levels = (limit - base) / step;
    if (levels === 0n) throw err('D_LQUANT_STEPLARGE', 'lquantize( ) step (argument #3) too large: must have at least one quantization level', call);
    if (levels > 0xffffn) throw err('D_LQUANT_STEPSMALL', 'lquantize( ) step (argument #3) too small: number of quantization levels must be a 16-bit quantity', call);
    const arg = D.packLquantizeArg({ base: Number(base), step: Number(step), levels: Number(levels) });
    if (info.arg === undefined) info.arg = arg;
    else if (info.arg !== arg) {
      const o = D.unpackLquantizeArg(info.arg);
      if (o.base !== Number(base))
        throw err('D_LQUANT_MATCHBASE', `lquantize( ) base (argument #1) doesn't match previous declaration: expected ${o.base}, found ${base}`, call);
      if (o.levels * o.step !== Number(levels * step))
        throw err('D_LQUANT_MATCHLIM', `lquantize( ) limit (argument #2) doesn't match previous declaration: expected ${o.base + o.levels * o.step}, found ${Number(base + levels * step)}`, call);
      throw err('D_LQUANT_MATCHSTEP', `lquantize( ) step (argument #3) doesn't match previous declaration: expected ${o.step}, found ${step}`, call);
    }
    return arg;
  }

  /** llquantize()'s factor, magnitudes and steps, checked in DTrace for Linux's order and words. */
  private llquantizeArg(call: A.Call, info: AggInfo): bigint {
    const num = (i: number, tag: string, typeWords = 'an integer constant'): number => {
      const e = call.args[i];
      const c = constValue(e, this.cg.types);
      if (c === null || (tag === 'STEP' && c <= 0n)) throw err(`D_LLQUANT_${tag}TYPE`, `llquantize( ) argument #${i} must be ${typeWords}`, e);
      if (c < 0n || c > 0xffffn || (tag === 'FACTOR' && c < 2n)) {
        const more = tag === 'FACTOR' ? ' greater than or equal to 2' : '';
        throw err(`D_LLQUANT_${tag}VAL`, `llquantize( ) argument #${i} must be an unsigned 16-bit quantity${more}`, e);
      }
      return Number(c);
    };
    const factor = num(1, 'FACTOR');
    const low = num(2, 'LMAG');
    const high = num(3, 'HMAG');
    if (high < low)
      throw err('D_LLQUANT_HMAGVAL', 'llquantize( ) argument #3 (high magnitude) must be at least argument #2 (low magnitude)', call.args[3]);
    let top = 1n;
    for (let i = 0; i <= high; i++) {
      top *= BigInt(factor);
      if (top > 0xffffffffffffffffn)
        throw err('D_LLQUANT_HMAGVAL', 'llquantize( ) argument #3 (high magnitude) will cause overflow of 64 bits', call.args[3]);
    }
    const nsteps = num(4, 'STEP', 'a non-zero positive integer constant');
    const stepErr = (why: string) => err('D_LLQUANT_STEPVAL', `llquantize() argument #4 (steps) must ${why}`, call.args[4]);
    if (nsteps < factor && factor % nsteps !== 0) throw stepErr('evenly divide argument #1 (factor) when steps<factor');
    if (nsteps > factor) {
      if (nsteps % factor !== 0) throw stepErr('be a multiple of argument #1 (factor) when steps>factor');
      if (low === 0 && (factor * factor) % nsteps !== 0)
        throw stepErr('evenly divide the square of argument #1 (factor) when steps>factor and lmag==0');
      if (low > 0 && BigInt(factor) ** BigInt(low + 1) % BigInt(nsteps) !== 0n)
        throw stepErr('evenly divide pow(argument #1 (factor), lmag (argument #2) + 1) when steps>factor and lmag>0');
    }
    const v = [factor, low, high, nsteps];
    const arg = D.packLlquantizeArg({ factor, low, high, nsteps });
    if (info.arg === undefined) info.arg = arg;
    else if (info.arg !== arg) {
      const o = D.unpackLlquantizeArg(info.arg);
      const old = [o.factor, o.low, o.high, o.nsteps];
      const what = [['FACTOR', 'factor'], ['LMAG', 'lmag'], ['HMAG', 'hmag'], ['STEPS', 'steps']];
      const i = old.findIndex((x, j) => x !== v[j]);
      throw err(`D_LLQUANT_MATCH${what[i][0]}`, `llquantize() ${what[i][1]} (argument #${i + 1}) doesn't match previous declaration: expected ${old[i]}, found ${v[i]}`, call);
    }
    return arg;
  }
}

function plain(kind: number, difo: Difo | null): ActionDescription {
  return { kind, difo, ntuple: 0, arg: 0n, uarg: 0n };
}

function aggShown(name: string): string {
  return name === '_' ? '@' : `@${name}`;
}

function isScalar(t: DType): boolean {
  return isInteger(t) || t.kind === 'pointer';
}

function describeArg(e: A.Expression): string {
  if (e.kind === 'StringLiteral') return 'string';
  if (e.kind === 'IntegerLiteral') return 'int';
  if (e.kind === 'Aggregation') return 'aggregation';
  return 'expression';
}

function argType(t: DType): ArgType {
  if (t === STACK_TYPE) return { name: 'stack', kind: 'stack' };
  if (t.kind === 'int' && (t.name === '_symaddr' || t.name === '_usymaddr'))
    return { name: t.name, kind: 'integer', size: 8, signed: false, symaddr: t.name === '_usymaddr' ? 'user' : 'kernel' };
  if (t.kind === 'int') return { name: t.name, kind: 'integer', size: t.size, signed: t.signed };
  if (t.kind === 'string') return { name: 'string', kind: 'string' };
  if (t.kind === 'pointer') return { name: typeName(t), kind: 'pointer', size: 8 };
  // A char array key (a tracepoint's char [16]) is a C string to %s, as in printf.
  if (t.kind === 'array') return printfArgType(t);
  return { name: typeName(t), kind: 'other' };
}

/** The value of an integer constant expression, or null when it is not one. */
export function constValue(e: A.Expression | undefined, scope?: TypeScope): bigint | null {
  const v = literalValue(e);
  if (v !== null || !e || !scope) return v;
  // Integer inlines and enumerators are constants too (`inline int MAX = 1024;`).
  try {
    return scope.constant(e);
  } catch {
    return null;
  }
}

function literalValue(e: A.Expression | undefined): bigint | null {
  if (!e) return null;
  switch (e.kind) {
    case 'IntegerLiteral':
      return e.value;
    case 'Unary': {
      const v = literalValue(e.operand);
      if (v === null) return null;
      if (e.op === '-') return BigInt.asIntN(64, -v);
      if (e.op === '+') return v;
      if (e.op === '~') return BigInt.asIntN(64, ~v);
      return null;
    }
    case 'Binary': {
      const l = literalValue(e.left), r = literalValue(e.right);
      if (l === null || r === null) return null;
      switch (e.op) {
        case '+': return BigInt.asIntN(64, l + r);
        case '-': return BigInt.asIntN(64, l - r);
        case '*': return BigInt.asIntN(64, l * r);
        case '/': return r === 0n ? null : l / r;
        case '%': return r === 0n ? null : l % r;
        case '<<': return BigInt.asIntN(64, l << r);
        case '>>': return l >> r;
        case '&': return l & r;
        case '|': return l | r;
        case '^': return l ^ r;
        default: return null;
      }
    }
    default:
      return null;
  }
}
