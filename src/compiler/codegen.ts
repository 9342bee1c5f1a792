// Code generation: D clauses -> ECB descriptions whose predicates and actions are DIF objects.
//
// Expressions are compiled into DIF with a simple register allocator (r1..r7; r0 reads as zero).
// Actions follow libdtrace's conventions, which the consumer relies on: printf's first argument
// rides on the PRINTF action itself (a void DIFO when there are no arguments) and the rest are
// DIFEXPR actions; an aggregation's keys are DIFEXPR actions preceding the aggregating action,
// which counts them in ntuple; an expression statement is a DIFEXPR of void type.

import * as D from '../dif/constants.js';
import {
  DifBuilder, encodeCmp, encodeFlushts, encodeLdv, encodePushts, encodeLoad, encodeMov, encodeNot, encodeR, encodeRet, encodeStv,
  encodeTst, type Label,
} from '../dif/builder.js';
import type { ActionDescription, EcbDescription, ProbeDescription } from '../dof/program.js';
import type { Difo } from '../dif/difo.js';
import type * as A from './ast.js';
import { DtraceError, protoArgMessage, protoLenMessage } from './errors.js';
import { ACTION_PROTOTYPES, SUBROUTINE_BY_NAME, actionArity } from '../dif/subroutines.js';
import {
  BUILTINS, INT, LONG, STRING, ULONG, VOID, arithmetic, difType, intType, isInteger, isScalar, isUnsigned,
  cArithmetic, typeName, type DType, AGGREGATION_TYPE, isDynamicType, TRANSLATED_TYPE,
} from './types.js';
import { type ArgType, resolveSignedness, validateFormat } from '../abi/printf-format.js';
import { callSubroutine } from './subroutines.js';
import { BUILTIN_IDENTS, TypeScope } from './ctypes.js';
import * as T from './typed-expr.js';
import { Variables } from './variables.js';
import { AGG_FUNCTION_NAMES, AggregationCodegen, constValue } from './aggregations.js';
import { destructiveAction } from './destructive.js';
import { isStackActionName, isStackCall, stackAction } from './stacks.js';
import { desugarClause, hasIfStatement } from './sugar.js';
import { inlineArrayValue, translatedValue } from './translators.js';
import { argsElement, isArgsReference, type ClauseProbes } from './probe-args.js';
import { isRegisterReference, registerElement } from './registers.js';
import { SpeculationOrder, speculationAction } from './speculations.js';
import { tracememActions } from './tracemem.js';
import { printAction } from './print.js';
import { setoptActions } from './setopt.js';
import { isMemoryTarget, storeAssignment, storeUpdate } from './stores.js';
import { optionDefault } from '../options.js';

export interface Val {
  reg: number;
  type: DType;
}

interface Global {
  id: number;
  type: DType;
}

export interface CodegenOptions {
  strsize: number;
  /** Macro arguments ($1.. and $$1..). */
  macroArgs: string[];
  /** Values of named macro variables ($pid, $target, ...). */
  macros: Map<string, bigint>;
  /** -x defaultargs: a missing $N is 0 and a missing $$N is "". */
  defaultArgs?: boolean;
  /** Filled with the N of every $N/$$N the program references (for D_MACRO_UNUSED). */
  argRefs?: Set<number>;
  /** $0: the script's path for -s, else "dtrace". */
  arg0?: string;
  /** C types: declarations, kernel types (created when not given). */
  types?: TypeScope;
  /** The value of an option set by -x or #pragma D option (stackframes, ustackframes, ...). */
  option?: (name: string) => string | undefined;
}

/** Compiles clauses of one or more D programs into ECB descriptions. */
/** The errors of a name not (yet) defined, after which a clause's actions are typed first. */
const UNDEFINED = new Set(['D_VAR_UNDEF', 'D_IDENT_UNDEF']);

export class CodeGenerator {
  readonly ecbs: EcbDescription[] = [];
  private globals = new Map<string, Global>();
  private nextGlobal = D.DIF_VAR_OTHER_UBASE;
  readonly aggregations: AggregationCodegen;
  /** Thread-locals, clause-locals, associative arrays and variable declarations. */
  readonly vars = new Variables(this);
  private clauses = 0;
  /** The probes the clause being compiled enables, for args[] (set by the compile driver). */
  clauseProbes?: ClauseProbes[];
  /** Load the D library if these types of a probe's args[] need it (set by the compile driver). */
  libraryFor?: (types: string[]) => void;

  /** Types, typedefs, enumerators and inlines of the program (ctypes.ts). */
  readonly types: TypeScope;
  /** An option's value as -x or a pragma before this point set it. */
  readonly option: (name: string) => string | undefined;

  constructor(private opts: CodegenOptions) {
    this.types = opts.types ?? new TypeScope();
    this.option = (name) => opts.option?.(name);
    this.types.macroLiteral = (e) => this.substituteMacros(e);
    this.types.isGlobal = (n) => this.vars.isDeclaredGlobal(n);
    lastTypes = this.types;
    this.aggregations = new AggregationCodegen(this, opts);
  }

  /** Compile one clause for each of its (already resolved) probe descriptions. */
  clause(c: A.Clause, probes: ProbeDescription[]): void {
    // if/else: predicated sub-clauses, as libdtrace compiles them (sugar.ts).
    if (hasIfStatement(c)) return desugarClause(c).forEach((sub) => this.clause(sub, probes));
    const uarg = BigInt(this.clauses++);
    const actions: ActionDescription[] = [];
    const compileActions = () => inRegion('action list', () => {
      const order = new SpeculationOrder();
      for (const s of c.body ?? []) {
        this.statement(s, actions);
        order.check(actions, s);
      }
    });
    let predicate: Difo | null = null;
    try {
      predicate = c.predicate ? inRegion('predicate', () => this.predicate(c.predicate!, c)) : null;
      compileActions();
    } catch (e) {
      // The predicate may read a variable the clause's own actions first assign, as in
      // `/!self->start/ { self->start = timestamp; }`: dt_cook_clause then types the actions
      // before the predicate. Do so here when the predicate names a variable nothing has
      // assigned yet; if the actions too name an unknown one, the predicate's error stands.
      if (!(e instanceof DtraceError) || !UNDEFINED.has(e.tag) || !c.predicate || actions.length > 0 || predicate !== null)
        throw e;
      try {
        compileActions();
      } catch (e2) {
        throw e2 instanceof DtraceError && UNDEFINED.has(e2.tag) ? e : e2;
      }
      predicate = inRegion('predicate', () => this.predicate(c.predicate!, c));
    }
    for (const probe of probes) this.ecbs.push({ probe, predicate, actions, uarg });
  }

  private predicate(e: A.Expression, clause: A.Clause): Difo {
    const g = new DifoGen(this, this.opts);
    const v = g.expr(e);
    // A string is no scalar: DTrace refuses /execname/ and /"a" + 1/, once it has read the
    // clause (the line of its closing brace).
    if (!isInteger(v.type))
      throw err('D_PRED_SCALAR', 'predicate result must be of scalar type', { ...e, dnLine: clause.dnLine ?? e.dnLine });
    return g.finish(v, INT);
  }

  private statement(s: A.Statement, actions: ActionDescription[]): void {
    if (s.kind === 'IfStatement')
      throw err('D_SYNTAX', 'if statements are not supported yet', s);
    const e = this.foldConditional(s.expression);
    if (e.kind === 'Call' && e.callee.kind === 'Identifier') {
      if (this.action(e, e.callee.name, actions)) return;
      if (AGG_FUNCTION_NAMES.has(e.callee.name) && e.callee.module === undefined)
        throw err('D_CG_EXPR', `aggregating function ${e.callee.name}( ) may not be called from a D expression (D program context required)`, e);
    }
    if (e.kind === 'Assignment' && e.target.kind === 'Aggregation') {
      this.aggregations.assign(e.target, e, actions);
      return;
    }
    // `@a[k];` alone, or `@a;` once declared: dt_cook_clause's null-effect check (an undeclared
    // `@a;` fails first as an unknown name).
    if (e.kind === 'Aggregation' && ((e.keys?.length ?? 0) > 0 || this.aggregations.declared(e.name)))
      throw err('D_AGG_NULL', `expression has null effect: ${e.name === '_' ? '@' : `@${e.name}`}`, e);
    // An expression evaluated for its side effects.
    const g = new DifoGen(this, this.opts);
    const v = g.expr(e);
    actions.push(action(D.DTRACEACT_DIFEXPR, g.finish(v, VOID)));
  }

  /**
   * `C ? a : b` with C an integer constant (literals, integer inlines) is a or b, as dt_node_op3
   * folds it while parsing: so `OPT_x ? printf(...) : 1`, common in published scripts, is an action.
   */
  private foldConditional(e: A.Expression): A.Expression {
    while (e.kind === 'Conditional') {
      let c: bigint;
      try {
        c = this.types.constant(this.substituteMacros(e.test));
      } catch {
        break;
      }
      e = c !== 0n ? e.consequent : e.alternate;
    }
    return e;
  }

  /** `e` with its integer macro variables ($1, $target, ...) as the literals DTrace's lexer makes them. */
  private substituteMacros(e: A.Expression): A.Expression {
    switch (e.kind) {
      case 'MacroVariable': {
        if (e.asString) return e;
        const n = /^\d+$/.test(e.name) ? Number(e.name) : undefined;
        if (n !== undefined) this.opts.argRefs?.add(n);
        const text = n !== undefined
          ? (n === 0 ? undefined : this.opts.macroArgs[n - 1] ?? (this.opts.defaultArgs ? '0' : undefined))
          : this.opts.macros.get(e.name)?.toString();
        const int = text === undefined ? null : macroInteger(text);
        if (int === null) return e;
        const literal: A.IntegerLiteral = { kind: 'IntegerLiteral', line: e.line, column: e.column, file: e.file, value: int.magnitude, text: text!, suffix: '', decimal: int.decimal, isChar: false };
        return int.negative ? { kind: 'Unary', op: '-', operand: literal, line: e.line, column: e.column, file: e.file } : literal;
      }
      case 'Unary':
        return { ...e, operand: this.substituteMacros(e.operand) };
      case 'Binary':
        return { ...e, left: this.substituteMacros(e.left), right: this.substituteMacros(e.right) };
      default:
        return e;
    }
  }

  /** An action call; false when the name is not an action. */
  private action(call: A.Call, name: string, actions: ActionDescription[]): boolean {
    const args = call.args;
    // The count is checked against the action's prototype before anything else, as DTrace does.
    const prototype = ACTION_PROTOTYPES.get(name);
    if (prototype) {
      const mismatch = protoLenMessage(name, args.length, ...actionArity(prototype));
      if (mismatch) throw err('D_PROTO_LEN', mismatch, call);
    }
    switch (name) {
      case 'trace': {
        const g = new DifoGen(this, this.opts);
        const v = g.expr(args[0]);
        if (v.type.kind === 'void') throw err('D_TRACE_VOID', 'trace( ) may not be applied to a void expression', args[0]);
        if (isDynamicType(v.type)) throw err('D_TRACE_DYN', 'trace( ) may not be applied to a dynamic expression', args[0]);
        actions.push(action(D.DTRACEACT_DIFEXPR, g.finish(v, v.type)));
        return true;
      }
      case 'exit': {
        const g = new DifoGen(this, this.opts);
        const v = g.expr(args[0]);
        if (!isInteger(v.type)) throw err('D_PROTO_ARG', 'exit( ) argument #1 is incompatible with prototype:\n\tprototype: int\n\t argument: ' + typeName(v.type), call);
        actions.push(action(D.DTRACEACT_EXIT, g.finish(v, INT)));
        return true;
      }
      case 'printf': {
        const fmt = args[0];
        if (fmt.kind !== 'StringLiteral') formatNotConstant(this, 'printf', fmt, true);
        const vals: DifoResult[] = args.slice(1).map((a) => {
          const g = new DifoGen(this, this.opts);
          const v = g.expr(a);
          return { difo: g.finish(v, v.type), type: v.type };
        });
        // %A takes an integer only when -c/-p name a process ($target is then not 0).
        const problem = validateFormat(fmt.value, vals.map((v) => printfArgType(v.type)), { exactLength: true, haveTarget: (this.opts.macros.get('target') ?? 0n) !== 0n });
        if (problem) throw err(problem.tag, problem.message, call);
        const format = resolveSignedness(fmt.value, vals.map((v) => printfArgType(v.type)));
        if (vals.length === 0) {
          const g = new DifoGen(this, this.opts);
          actions.push({ ...action(D.DTRACEACT_PRINTF, g.finish({ reg: 0, type: VOID }, VOID)), format });
        } else {
          vals.forEach((v, i) => {
            const a = action(i === 0 ? D.DTRACEACT_PRINTF : D.DTRACEACT_DIFEXPR, v.difo);
            actions.push(i === 0 ? { ...a, format } : a);
          });
        }
        return true;
      }
      case 'tracemem':
        tracememActions(this, call, actions);
        return true;
      case 'print':
        printAction(this, call, this.opts.strsize, actions);
        return true;
      case 'setopt':
        setoptActions(this, call, actions);
        return true;
      case 'ftruncate': {
        // A library action carries a DIF object; ftruncate()'s constant 0 is ignored, as in libdtrace.
        const g = new DifoGen(this, this.opts);
        const r = g.alloc(call as unknown as A.Expression);
        g.b.setx(0n, r);
        actions.push({ ...action(D.DTRACEACT_LIBACT, g.finish({ reg: r, type: INT }, INT)), arg: BigInt(D.DT_ACT_FTRUNCATE) });
        return true;
      }
      case 'speculate':
      case 'commit':
      case 'discard':
        speculationAction(new DifoGen(this, this.opts), call, name, actions);
        return true;
      default:
        if (destructiveAction(this, call, name, actions)) return true;
        if (isStackCall(call)) {
          actions.push(stackAction(this, this.opts, call).action);
          return true;
        }
        return this.aggregations.action(call, name, actions);
    }
  }

  /** A fresh DIF object generator, for checks that compile an expression on the side. */
  difoGen(): DifoGen {
    return new DifoGen(this, this.opts);
  }

  // ---- variables (shared by every DIF object of the program)

  global(name: string): Global | undefined {
    return this.globals.get(name);
  }

  /** The next id of the global namespace (scalars and associative arrays share it). */
  allocGlobalId(): number {
    return this.nextGlobal++;
  }

  declareGlobal(name: string, type: DType): Global {
    let g = this.globals.get(name);
    if (!g) this.globals.set(name, (g = { id: this.nextGlobal++, type }));
    return g;
  }
}

/**
 * printf()'s or system()'s format that is not a string literal: printf's prototype wants a string
 * (D_PROTO_ARG for anything else), and both want a string constant (D_PRINTF_ARG_FMT).
 */
export function formatNotConstant(cg: CodeGenerator, name: string, fmt: A.Expression, typed: boolean): never {
  const t = cg.difoGen().expr(fmt).type;
  if (typed && t.kind !== 'string') throw err('D_PROTO_ARG', protoArgMessage(name, 1, 'string', typeName(t)), fmt);
  throw err('D_PRINTF_ARG_FMT', protoArgMessage(name, 1, 'string constant', typeName(t)), fmt);
}

interface DifoResult {
  difo: Difo;
  type: DType;
}

export function printfArgType(t: DType): ArgType {
  switch (t.kind) {
    case 'int': return { name: t.name, kind: 'integer', size: t.size, signed: t.signed };
    case 'string': return { name: 'string', kind: 'string' };
    case 'pointer': return { name: t.name, kind: 'pointer', size: 8 };
    case 'void': return { name: 'void', kind: 'void' };
    case 'enum': return { name: typeName(t), kind: 'integer', size: 4, signed: true };
    case 'float': return { name: t.name, kind: 'float', size: t.size };
    case 'array': return { name: typeName(t), kind: 'array', element: printfArgType(t.of) };
    case 'struct': return { name: typeName(t), kind: 'struct' };
    case 'function': return { name: t.name, kind: 'other' };
  }
}

function action(kind: number, difo: Difo | null): ActionDescription {
  return { kind, difo, ntuple: 0, arg: 0n, uarg: 0n };
}

export function err(tag: string, message: string, at: A.Position): DtraceError {
  return new DtraceError(tag, message, { line: at.dnLine ?? at.line, column: at.column, file: at.file });
}

/** Why a D built-in has no meaning on Linux (the end of its "not supported" message). */
const UNSUPPORTED_WHY: Record<string, string> = {
  ipl: ' (Linux has no interrupt priority levels)',
  pset: ' (Linux has no processor sets)',
};

const COMPARE: Record<string, { signed: number; unsigned: number }> = {
  '==': { signed: D.DIF_OP_BE, unsigned: D.DIF_OP_BE },
  '!=': { signed: D.DIF_OP_BNE, unsigned: D.DIF_OP_BNE },
  '<': { signed: D.DIF_OP_BL, unsigned: D.DIF_OP_BLU },
  '<=': { signed: D.DIF_OP_BLE, unsigned: D.DIF_OP_BLEU },
  '>': { signed: D.DIF_OP_BG, unsigned: D.DIF_OP_BGU },
  '>=': { signed: D.DIF_OP_BGE, unsigned: D.DIF_OP_BGEU },
};

/** Generates one DIF object. */
export class DifoGen {
  readonly b = new DifBuilder();
  private free = [7, 6, 5, 4, 3, 2, 1];

  constructor(readonly cg: CodeGenerator, readonly opts: CodegenOptions) {}

  finish(v: Val, rtype: DType): Difo {
    this.b.emit(encodeRet(v.reg));
    return this.b.finish(difType(rtype, this.opts.strsize));
  }

  alloc(at: A.Expression): number {
    const r = this.free.pop();
    if (r === undefined) throw err('D_NOREG', 'insufficient registers to generate code', at);
    return r;
  }

  release(r: number): void {
    if (r !== 0 && !this.free.includes(r)) this.free.push(r);
  }

  /**
   * Push values on the tuple stack (the arguments of a subroutine call or the keys of an
   * associative array), strings by reference; the consumer instruction follows, then flushTuple().
   */
  pushTuple(vals: Val[], at?: A.Expression): void {
    for (const v of vals) {
      if (v.type.kind === 'string') this.b.emit(encodePushts(D.DIF_OP_PUSHTR, D.DIF_TYPE_STRING, 0, v.reg));
      else if (v.type.kind === 'struct' && at !== undefined) {
        // A struct or union key is its bytes, not its address: by reference, its size a constant.
        const size = this.alloc(at);
        this.b.setx(BigInt(v.type.def.size), size);
        this.b.emit(encodePushts(D.DIF_OP_PUSHTR, D.DIF_TYPE_CTF, size, v.reg));
        this.release(size);
      } else this.b.emit(encodePushts(D.DIF_OP_PUSHTV, D.DIF_TYPE_CTF, 0, v.reg));
    }
  }

  flushTuple(): void {
    this.b.emit(encodeFlushts());
  }

  private builtinVar(name: string, id: number, type: DType, write = false): void {
    this.b.variable({
      name, id, kind: D.DIFV_KIND_SCALAR, scope: D.DIFV_SCOPE_GLOBAL,
      flags: write ? D.DIFV_F_MOD : D.DIFV_F_REF, type: difType(type, this.opts.strsize),
    });
  }

  expr(e: A.Expression): Val {
    const b = this.b;
    switch (e.kind) {
      case 'IntegerLiteral': {
        const r = this.alloc(e);
        b.setx(e.value, r);
        return { reg: r, type: literalType(e) };
      }
      case 'StringLiteral': {
        const r = this.alloc(e);
        b.sets(e.value, r);
        return { reg: r, type: STRING };
      }
      case 'MacroVariable':
        return this.macro(e);
      case 'Identifier':
        return this.identifier(e);
      case 'Binary':
        return this.binary(e);
      case 'Unary':
        return this.unary(e);
      case 'Conditional': {
        // Each register is freed as soon as its value is consumed, as dt_regset does, so a chain
        // of nested ?: needs no more registers than one of its arms: the result lives in the
        // alternate's register, and the consequent's move into it is patched in once known.
        // A test that is an integer constant picks its arm at compile time, as DTrace's parser
        // folds it: the other arm is never compiled, so neither its type nor its names matter.
        const k = constValue(e.test, this.cg.types);
        if (k !== null) {
          // (The parser has already refused a constant division by zero in the arm dropped.)
          refuseDivisionsByZero(k !== 0n ? e.alternate : e.consequent);
          return this.expr(k !== 0n ? e.consequent : e.alternate);
        }
        const t = notScalar(this.expr(e.test), 'operator ?: expression must be of scalar type', e);
        b.emit(encodeTst(t.reg));
        this.release(t.reg);
        const lelse = b.newLabel(), ldone = b.newLabel();
        b.branch(D.DIF_OP_BE, lelse);
        const x = this.expr(e.consequent);
        const move = b.emit(encodeMov(x.reg, x.reg));
        this.release(x.reg);
        b.branch(D.DIF_OP_BA, ldone);
        b.placeLabel(lelse);
        const y = this.expr(e.alternate);
        b.patch(move, encodeMov(x.reg, y.reg));
        b.placeLabel(ldone);
        if (x.type.kind === 'void' && y.type.kind === 'void') throw err('D_OP_ACT', 'action cannot be used in a conditional context', e);
        if (x.type.kind === 'void' || y.type.kind === 'void') throw err('D_OP_INCOMPAT', 'operator ?: operands must have compatible types', e);
        // Two integers, or arms one of which could be assigned to the other's type (a pointer
        // and a null pointer constant, compatible pointers, strings): dt_node_is_ptrcompat.
        const integer = (t: DType) => t.kind === 'int' || t.kind === 'enum';
        if (!(integer(x.type) && integer(y.type)) && !T.assignable(this, x.type, y, e.alternate) && !T.assignable(this, y.type, x, e.consequent))
          throw err('D_OP_INCOMPAT', 'operator ?: operands must have compatible types', e);
        return { reg: y.reg, type: x.type.kind === 'string' ? STRING : cArithmetic(x.type, y.type) };
      }
      case 'Assignment':
        refuseDivisionByZero(e);
        if (this.cg.vars.handles(e.target)) return this.cg.vars.assign(this, { ...e, target: e.target });
        if (isMemoryTarget(this, e.target)) return storeAssignment(this, e);
        return this.assignment(e);
      case 'Update': {
        const target = e.operand;
        if (this.cg.vars.handles(target)) return this.cg.vars.update(this, { ...e, operand: target });
        if (isMemoryTarget(this, target)) return storeUpdate(this, e);
        if (target.kind !== 'Identifier') {
          // DTrace wants a scalar operand before it asks for an lvalue: "a"++ is D_OP_SCALAR.
          const v = this.expr(target);
          this.release(v.reg);
          if (!isScalar(v.type)) throw err('D_OP_SCALAR', `operator ${e.op} requires operand of scalar type`, e);
          throw err('D_OP_LVAL', `operator ${e.op} requires modifiable lvalue as an operand`, e);
        }
        this.cg.vars.checkScalarName(target.name, target);
        // A kernel symbol is an lvalue, but not writable.
        // An inline, enumerator or NULL is a value, not an lvalue, to DTrace.
        if (this.valueName(target.name)) throw err('D_OP_LVAL', `operator ${e.op} requires modifiable lvalue as an operand`, e);
        if (target.module !== undefined || BUILTINS.has(target.name) || this.constantName(target.name)) throw err('D_OP_WRITE', `operator ${e.op} can only be applied to a writable variable`, e);
        // As in DTrace, ++ and -- create a global never seen before as an int64_t.
        const g = this.cg.global(target.name) ?? this.cg.declareGlobal(target.name, LONG);
        if (!isScalar(g.type)) throw err('D_OP_SCALAR', `operator ${e.op} requires operand of scalar type`, e);
        const cur = this.loadGlobal(target.name, g);
        const one = this.alloc(e);
        b.setx(T.updateStep(this, g.type), one);
        const nv = this.alloc(e);
        b.emit(encodeR(e.op === '++' ? D.DIF_OP_ADD : D.DIF_OP_SUB, cur.reg, one, nv));
        this.release(one);
        this.storeGlobal(target.name, g, nv, e);
        if (e.prefix) {
          this.release(cur.reg);
          return { reg: nv, type: g.type };
        }
        this.release(nv);
        return cur;
      }
      case 'Cast':
        return T.cast(this, e);
      case 'Member':
        return T.member(this, e);
      case 'SizeofExpression':
        return T.sizeofExpression(this, e);
      case 'Offsetof':
        return T.offsetof(this, e);
      case 'Comma': {
        const l = this.expr(e.left);
        if (l.type.kind === 'void' && e.left.kind === 'Call') throw err('D_OP_ACT', 'operator , operands cannot be actions', e);
        this.release(l.reg);
        const r = this.expr(e.right);
        if (r.type.kind === 'void' && e.right.kind === 'Call') throw err('D_OP_ACT', 'operator , operands cannot be actions', e);
        return r;
      }
      case 'Stringof':
        return T.stringof(this, e);
      case 'Call':
        if (isStackCall(e)) throw err('D_CG_EXPR', `tracing function ${e.callee.name}( ) may not be called from a D expression (D program context required)`, e);
        return callSubroutine(this, e);
      case 'SizeofType':
        return T.sizeofType(this, e);
      case 'ThreadLocal':
      case 'ClauseLocal':
        return this.cg.vars.load(this, e);
      case 'Xlate':
        return translatedValue(this, e);
      case 'Aggregation': {
        // An aggregation has no value in an expression: it is typed "aggregation" so that each
        // use is refused as DTrace refuses it (operands, casts, prototypes, printf conversions).
        if (!this.cg.aggregations.declared(e.name))
          throw err('D_IDENT_UNDEF', `failed to resolve @${e.name}: Unknown variable name`, e);
        if (e.keys && e.keys.length > 0) for (const k of e.keys) this.release(this.expr(k).reg);
        return { reg: 0, type: AGGREGATION_TYPE };
      }
      default:
        if (e.kind === 'Index' && isArgsReference(e)) return argsElement(this, e);
        if (e.kind === 'Index' && isRegisterReference(e)) return registerElement(this, e);
        if (e.kind === 'Index' && T.isPointerIndex(this, e)) return T.indexPointer(this, e);
        if (e.kind === 'Index') {
          const inl = inlineArrayValue(this, e);
          if (inl) return { reg: this.expr(inl.value).reg, type: inl.type };
        }
        if (this.cg.vars.handles(e)) return this.cg.vars.load(this, e);
        throw err('D_UNSUPPORTED', `${describeNode(e)} is not supported yet`, e);
    }
  }

  /** Truncate/extend a register to an integer type, as a cast does. */
  private truncate(reg: number, t: DType & { kind: 'int' }, at: A.Expression): void {
    if (t.size === 8) return;
    const shift = this.alloc(at);
    this.b.setx(BigInt(64 - t.size * 8), shift);
    this.b.emit(encodeR(D.DIF_OP_SLL, reg, shift, reg));
    this.b.emit(encodeR(t.signed ? D.DIF_OP_SRA : D.DIF_OP_SRL, reg, shift, reg));
    this.release(shift);
  }

  private macro(e: A.MacroVariable): Val {
    const r = this.alloc(e);
    if (/^\d+$/.test(e.name)) {
      const n = Number(e.name);
      this.opts.argRefs?.add(n);
      const text = n === 0 ? this.opts.arg0 ?? 'dtrace' : this.opts.macroArgs[n - 1] ?? (this.opts.defaultArgs ? (e.asString ? '' : '0') : undefined);
      if (text === undefined) throw err('D_MACRO_UNDEF', `macro argument $${e.asString ? '$' : ''}${e.name} is not defined`, e);
      if (e.asString) {
        this.b.sets(text, r);
        return { reg: r, type: STRING };
      }
      const int = macroInteger(text);
      if (int !== null) {
        this.b.setx(BigInt.asIntN(64, int.negative ? -int.magnitude : int.magnitude), r);
        return { reg: r, type: literalType({ value: int.magnitude, suffix: '', decimal: int.decimal } as A.IntegerLiteral) };
      }
      this.b.sets(text, r);
      return { reg: r, type: STRING };
    }
    const v = this.opts.macros.get(e.name);
    if (v === undefined) throw err('D_MACRO_UNDEF', `macro variable $${e.name} is not defined`, e);
    this.b.setx(v, r);
    return { reg: r, type: INT };
  }

  private identifier(e: A.Identifier): Val {
    if (e.module !== undefined) return T.kernelSymbol(this, e);
    const b = this.b;
    if (e.name === 'cpu') {
      // cpu is curcpu->cpu_id: the first member of cpuinfo_t.
      const r = this.alloc(e);
      this.builtinVar('curcpu', D.DIF_VAR_CURCPU, { kind: 'pointer', name: 'cpuinfo_t *' });
      b.emit(encodeLdv(D.DIF_OP_LDGS, D.DIF_VAR_CURCPU, r));
      b.emit(encodeLoad(D.DIF_OP_LDUW, r, r));
      return { reg: r, type: intType(4, true, 'processorid_t') };
    }
    const bi = BUILTINS.get(e.name);
    if (bi) {
      const r = this.alloc(e);
      this.builtinVar(e.name, bi.id, bi.type);
      b.emit(encodeLdv(D.DIF_OP_LDGS, bi.id, r));
      return { reg: r, type: bi.type };
    }
    this.cg.vars.checkScalarName(e.name, e);
    const g = this.cg.global(e.name);
    if (!g) {
      const c = T.namedConstant(this, e);
      if (c) return c;
      // args is an array: bare, it is refused as DTrace refuses any array read as a scalar.
      if (e.name === 'args') throw err('D_IDENT_BADREF', `associative array 'args' may not be referenced as scalar`, e);
      const fn = functionKind(e.name);
      if (fn) throw err('D_IDENT_BADREF', `${fn} '${e.name}' may not be referenced as scalar`, e);
      // A D built-in this system does not provide (ipl, pset): say so.
      if (BUILTIN_IDENTS.has(e.name))
        throw err('D_IDENT_UNDEF', `failed to resolve ${e.name}: built-in variable not supported on this system${UNSUPPORTED_WHY[e.name] ?? ''}`, e);
      throw err('D_IDENT_UNDEF', `failed to resolve ${e.name}: Unknown variable name`, e);
    }
    return this.loadGlobal(e.name, g);
  }

  /** An inline, an enumerator or NULL, none of which a program may assign (unless a global of that name exists). */
  private constantName(name: string): boolean {
    if (this.cg.global(name)) return false;
    const t = this.cg.types;
    return name === 'NULL' || t.inlines.has(name) || t.enumerators.has(name);
  }

  /** A program's inline or enumerator, or NULL: an expression, not an lvalue, to DTrace (the
   *  library's inlines that stand for DTrace's built-in variables, chip and kin, are variables). */
  private valueName(name: string): boolean {
    return this.constantName(name) && !BUILTIN_IDENTS.has(name);
  }

  private loadGlobal(name: string, g: Global): Val {
    const r = this.free.pop();
    if (r === undefined) throw new DtraceError('D_NOREG', 'insufficient registers to generate code');
    this.b.variable({ name, id: g.id, kind: D.DIFV_KIND_SCALAR, scope: D.DIFV_SCOPE_GLOBAL, flags: D.DIFV_F_REF, type: difType(g.type, this.opts.strsize) });
    this.b.emit(encodeLdv(D.DIF_OP_LDGS, g.id, r));
    return { reg: r, type: g.type };
  }

  /** A narrow integer global holds its value as its type does (C's conversion on assignment), so
   *  a load sign- or zero-extends it: `unsigned char C = -3` is 253 in arithmetic. */
  private storeGlobal(name: string, g: Global, reg: number, at: A.Expression): void {
    if (g.type.kind === 'int') this.truncate(reg, g.type, at);
    this.b.variable({ name, id: g.id, kind: D.DIFV_KIND_SCALAR, scope: D.DIFV_SCOPE_GLOBAL, flags: D.DIFV_F_MOD, type: difType(g.type, this.opts.strsize) });
    this.b.emit(encodeStv(D.DIF_OP_STGS, g.id, reg));
  }

  private assignment(e: A.Assignment): Val {
    const t = e.target;
    if (t.kind !== 'Identifier')
      throw err('D_OP_LVAL', `operator ${e.op} requires modifiable lvalue as an operand`, e);
    if (this.valueName(t.name)) throw err('D_OP_LVAL', `operator ${e.op} requires modifiable lvalue as an operand`, e);
    if (t.module !== undefined || BUILTINS.has(t.name) || t.name === 'cpu' || this.constantName(t.name))
      throw err('D_OP_WRITE', `operator ${e.op} can only be applied to a writable variable`, e);
    let v: Val;
    this.cg.vars.checkScalarName(t.name, t);
    let g = this.cg.global(t.name);
    if (e.op === '=') {
      // NULL or 0 given to a string global, which DTrace accepts: a null string pointer, equal to
      // NULL and faulting when read, as in DTrace.
      const nullString = g?.type.kind === 'string' && T.isNullConstant(e.value);
      v = this.expr(e.value);
      if (nullString) v = { reg: v.reg, type: g!.type };
      if (v.type.kind === 'void') throw err('D_OP_INCOMPAT', `operands have incompatible types: "${g ? typeName(g.type) : 'void'}" = "void"`, e);
      if (v.type === TRANSLATED_TYPE) throw err('D_UNKNOWN', 'internal error -- no support for translated types yet', e);
      if (isDynamicType(v.type))
        throw err('D_OP_INCOMPAT', `operands have incompatible types: "${g ? typeName(g.type) : 'scalar'}" = "${typeName(v.type)}"`, e);
      T.refuseArrayTarget(g?.type ?? v.type, e);
      if (!g) g = this.cg.declareGlobal(t.name, v.type);
      else if (!T.assignable(this, g.type, v, e.value))
        throw err('D_OP_INCOMPAT', `operands have incompatible types: "${typeName(g.type)}" = "${typeName(v.type)}"`, e);
    } else {
      if (!g) throw err('D_IDENT_UNDEF', `failed to resolve ${t.name}: Unknown variable name`, t);
      const cur = this.loadGlobal(t.name, g);
      const rhs = this.expr(e.value);
      const op = e.op.slice(0, -1) as A.BinaryOperator;
      T.checkCompound(this, e.op, cur, rhs, e);
      v = this.arith(op, cur, rhs, e);
    }
    this.storeGlobal(t.name, g, v.reg, e);
    return { reg: v.reg, type: g.type };
  }

  private binary(e: A.Binary): Val {
    const b = this.b;
    refuseDivisionByZero(e);
    switch (e.op) {
      case '&&':
      case '||': {
        // The left operand's register is free once tested; the result lives in the right's.
        const l = this.expr(e.left);
        const out = b.newLabel(), done = b.newLabel();
        notScalar(l, `operator ${e.op} requires operands of scalar type`, e);
        b.emit(encodeTst(l.reg));
        this.release(l.reg);
        b.branch(e.op === '&&' ? D.DIF_OP_BE : D.DIF_OP_BNE, out);
        const r = this.expr(e.right);
        notScalar(r, `operator ${e.op} requires operands of scalar type`, e);
        b.emit(encodeTst(r.reg));
        b.branch(e.op === '&&' ? D.DIF_OP_BE : D.DIF_OP_BNE, out);
        if (e.op === '&&') b.setx(1n, r.reg);
        else b.emit(encodeMov(0, r.reg));
        b.branch(D.DIF_OP_BA, done);
        b.placeLabel(out);
        if (e.op === '&&') b.emit(encodeMov(0, r.reg));
        else b.setx(1n, r.reg);
        b.placeLabel(done);
        return { reg: r.reg, type: INT };
      }
      case '^^': {
        const [lv, rv] = this.operands(e);
        const l = this.bool(notScalar(lv, 'operator ^^ requires operands of scalar type', e), e);
        const r = this.bool(notScalar(rv, 'operator ^^ requires operands of scalar type', e), e);
        b.emit(encodeR(D.DIF_OP_XOR, l.reg, r.reg, l.reg));
        this.release(r.reg);
        return { reg: l.reg, type: INT };
      }
      case '==': case '!=': case '<': case '<=': case '>': case '>=': {
        const [l, r] = this.operands(e, (l) => T.enumTagOperand(this, l, e) ?? this.expr(e.right));
        const strings = T.comparison(this, e, l, r) === 'string';
        b.emit(encodeCmp(strings ? D.DIF_OP_SCMP : D.DIF_OP_CMP, l.reg, r.reg));
        this.release(r.reg);
        const unsigned = !strings && isUnsigned(arithmetic(l.type, r.type));
        return this.setCondition(COMPARE[e.op][unsigned ? 'unsigned' : 'signed'], l.reg);
      }
      default: {
        const [l, r] = this.operands(e);
        const typed = T.typedArith(this, e.op, l, r, e);
        if (typed) return typed;
        return this.arith(e.op, l, r, e);
      }
    }
  }

  /**
   * An operation's operands, left first as written -- unless that would run out of registers
   * while the right operand, the deeper one, would not: then, when neither side has an effect
   * the other could see, the right is computed first (as Sethi and Ullman order a tree), so
   * `a + b * (c + d * (e + ...))` compiles however deep it nests; where it has one, the left is
   * spilled instead. `rightOf` computes a right operand that depends on the left (a comparison's
   * enum tag), which is then never computed first.
   */
  private operands(e: A.Binary, rightOf?: (l: Val) => Val): [Val, Val] {
    const nl = registerNeed(e.left), nr = registerNeed(e.right);
    const right = rightOf ?? (() => this.expr(e.right));
    if (!rightOf && nl !== null && nr !== null && nr + 1 > this.free.length && nr > nl) {
      const r = this.expr(e.right);
      return [this.expr(e.left), r];
    }
    const l = this.expr(e.left);
    // Too few registers left for the right operand (the left has an effect, or is as deep):
    // the left waits in a clause-local while the right is computed (a string stays in its
    // register, which the device follows to know when its temporary is free).
    if (this.free.length < 3 && (nr === null || nr > this.free.length) && l.type.kind !== 'string') {
      const depth = ++this.spillDepth;
      this.cg.vars.spill(this, depth, l.reg, false, e);
      this.release(l.reg);
      const r = right(l);
      this.spillDepth--;
      const reg = this.alloc(e);
      this.cg.vars.spill(this, depth, reg, true, e);
      return [{ ...l, reg }, r];
    }
    return [l, right(l)];
  }
  /** How many operands wait in clause-locals (`operands`). */
  private spillDepth = 0;

  /** Register := 1 if the branch condition holds, else 0. */
  private setCondition(branchOp: number, reg: number): Val {
    const b = this.b;
    const yes: Label = b.newLabel(), done: Label = b.newLabel();
    b.branch(branchOp, yes);
    b.emit(encodeMov(0, reg));
    b.branch(D.DIF_OP_BA, done);
    b.placeLabel(yes);
    b.setx(1n, reg);
    b.placeLabel(done);
    return { reg, type: INT };
  }

  private bool(v: Val, at: A.Expression): Val {
    this.b.emit(encodeTst(v.reg));
    void at;
    return this.setCondition(D.DIF_OP_BNE, v.reg);
  }

  private arith(op: A.BinaryOperator, l: Val, r: Val, at: A.Expression): Val {
    if (!isInteger(l.type) || !isInteger(r.type)) {
      // DTrace asks * and / for arithmetic operands, % and the bitwise operators for integers
      const arithmetic = (t: DType) => isInteger(t) || t.kind === 'float';
      const shown = T.shownOperator(op, at);
      if ((op === '*' || op === '/') && !(arithmetic(l.type) && arithmetic(r.type)))
        throw err('D_OP_ARITH', `operator ${shown} requires operands of arithmetic type`, at);
      if (['%', '|', '&', '^', '<<', '>>'].includes(op)) throw err('D_OP_INT', `operator ${shown} requires operands of integral type`, at);
      throw err('D_OP_INCOMPAT', `operands have incompatible types: "${typeName(l.type)}" ${shown} "${typeName(r.type)}"`, at);
    }
    // A shift has its left operand's type, as in DTrace (no promotion to int).
    const type = op === '<<' || op === '>>' ? (l.type.kind === 'enum' ? INT : l.type) : arithmetic(l.type, r.type);
    const unsigned = isUnsigned(type);
    const ops: Record<string, number> = {
      '+': D.DIF_OP_ADD, '-': D.DIF_OP_SUB, '*': D.DIF_OP_MUL,
      '/': unsigned ? D.DIF_OP_UDIV : D.DIF_OP_SDIV, '%': unsigned ? D.DIF_OP_UREM : D.DIF_OP_SREM,
      '&': D.DIF_OP_AND, '|': D.DIF_OP_OR, '^': D.DIF_OP_XOR, '<<': D.DIF_OP_SLL,
      '>>': unsigned ? D.DIF_OP_SRL : D.DIF_OP_SRA,
    };
    const dop = ops[op];
    if (dop === undefined) throw err('D_UNSUPPORTED', `operator ${op} is not supported here`, at);
    this.b.emit(encodeR(dop, l.reg, r.reg, l.reg));
    this.release(r.reg);
    return { reg: l.reg, type };
  }

  private unary(e: A.Unary): Val {
    const b = this.b;
    if (e.op === '*') return T.dereference(this, e);
    if (e.op === '&') return T.addressOf(this, e);
    const v = this.expr(e.operand);
    switch (e.op) {
      case '+':
      case '-':
        // arithmetic: an integer, not a pointer
        if (!isInteger(v.type) || v.type.kind === 'pointer') throw err('D_OP_ARITH', `operator ${e.op} requires an operand of arithmetic type`, e);
        if (e.op === '+') return v;
        b.emit(encodeR(D.DIF_OP_SUB, 0, v.reg, v.reg));
        if (v.type.kind === 'int' && !v.type.signed && v.type.size < 8) {
          // DTrace's parser negates an unsigned constant within its type: -0x80000000 is
          // 0x80000000, -2u is 4294967294 (a computed value keeps its 64 bits, as there).
          const c = constValue(e.operand);
          if (c !== null) b.setx(BigInt.asUintN(v.type.size * 8, -c), v.reg);
        }
        return { reg: v.reg, type: keepIntType(v.type) };
      case '~':
        if (!isInteger(v.type) || v.type.kind === 'pointer') throw err('D_OP_INT', 'operator ~ requires an operand of integral type', e);
        b.emit(encodeNot(v.reg, v.reg));
        return { reg: v.reg, type: keepIntType(v.type) };
      case '!':
        notScalar(v, 'operator ! requires an operand of scalar type', e);
        b.emit(encodeTst(v.reg));
        return { reg: this.setCondition(D.DIF_OP_BE, v.reg).reg, type: keepIntType(v.type) };
      default:
        throw err('D_UNSUPPORTED', `operator ${e.op} is not supported yet`, e);
    }
  }
}

/** A unary operator's result type in DTrace: the integer operand's own type (no promotion to int). */
function keepIntType(t: DType): DType {
  return t.kind === 'int' ? t : INT;
}

/** A void, dynamic, string or struct value where a truth value is needed: D_OP_SCALAR. */
function notScalar(v: Val, message: string, at: A.Position): Val {
  if (v.type.kind === 'void' || v.type.kind === 'struct' || v.type.kind === 'string' || isDynamicType(v.type)) throw err('D_OP_SCALAR', message, at);
  return v;
}

/**
 * A macro argument that reads as an integer, as DTrace's lexer reads one with strtoull(3) in base
 * 0: decimal, 0x hexadecimal or 0 octal, the whole text; one past 64 bits (ERANGE) is not an
 * integer. Its type is then the type of that literal (int, long, ...), as for a constant written
 * in the program. A leading - negates it, as unary minus does.
 */
export function macroInteger(text: string): { magnitude: bigint; negative: boolean; decimal: boolean } | null {
  const m = /^(-?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$/.exec(text);
  if (!m) return null;
  const body = m[2];
  const magnitude = /^0[xX]/.test(body) ? BigInt(body) : body.length > 1 && body.startsWith('0') ? BigInt(`0o${body.slice(1)}`) : BigInt(body);
  if (magnitude > 0xffffffffffffffffn) return null;
  return { magnitude, negative: m[1] === '-', decimal: !(body.length > 1 && body.startsWith('0')) };
}

function literalType(e: A.IntegerLiteral): DType {
  const s = e.suffix.toLowerCase();
  const unsigned = s.includes('u');
  const long = s.includes('l');
  const v = e.value;
  if (!long) {
    if (!unsigned && v <= 0x7fffffffn) return INT;
    if ((unsigned || !e.decimal) && v <= 0xffffffffn) return intType(4, false, 'unsigned int');
  }
  // C's rules: an integer constant too big for int is a long (long long with an LL suffix), then
  // unsigned; printf's %lx and %llx tell the two apart.
  const name = s.includes('ll') ? 'long long' : 'long';
  if (!unsigned && v <= 0x7fffffffffffffffn) return intType(8, true, name);
  return intType(8, false, `unsigned ${name}`);
}

/**
 * The D type of a type as written. Pass the program's TypeScope (`cg.types`) so that its typedefs,
 * structs and enums are seen; without one, the scope of the most recently created code generator
 * is used (kept for callers written before ctypes.ts).
 */
export function resolveType(t: A.TypeExpression, at: A.Expression, types?: TypeScope): DType {
  void at;
  return (types ?? lastTypes ?? (lastTypes = new TypeScope())).resolve(t);
}

let lastTypes: TypeScope | undefined;

function describeNode(e: A.Expression): string {
  switch (e.kind) {
    case 'Call': return e.callee.kind === 'Identifier' ? `${e.callee.name}( )` : 'this call';
    case 'ThreadLocal': return 'self-> variables';
    case 'ClauseLocal': return 'this-> variables';
    case 'Index': return 'associative arrays';
    case 'Member': return 'member access';
    case 'Aggregation': return 'an aggregation in an expression';
    default: return e.kind;
  }
}

/**
 * A key of `n` values fits DTrace's tuple registers (-x tregs, 8 by default), which, as DTrace
 * counts them, hold tregs + 1 keys. A failure is libdtrace's own error: no tag, no line.
 */
export function checkTuple(opts: CodegenOptions, n: number): void {
  const tregs = Number(opts.option?.('tregs') ?? optionDefault('tregs'));
  if (n > tregs + 1) throw new DtraceError('', 'Insufficient tuple registers to generate code', { region: '' });
}

/**
 * The registers an expression takes computed as written, left operands first; null when it may
 * have an effect (an assignment, a call) or is not simple enough to say.
 */
export function registerNeed(e: A.Expression): number | null {
  switch (e.kind) {
    case 'IntegerLiteral': case 'FloatLiteral': case 'StringLiteral': case 'Identifier':
    case 'MacroVariable': case 'ThreadLocal': case 'ClauseLocal': case 'SizeofType': case 'Offsetof':
      return 1;
    case 'Unary':
      return e.op === '&' || e.op === '*' ? null : registerNeed(e.operand);
    case 'Cast':
      return registerNeed(e.operand);
    case 'Binary': {
      const l = registerNeed(e.left), r = registerNeed(e.right);
      if (l === null || r === null) return null;
      // && and || free the left operand's register before the right's is taken.
      return e.op === '&&' || e.op === '||' ? Math.max(l, r) : Math.max(l, r + 1);
    }
    default:
      return null;
  }
}

/** What DTrace calls a function's name read as a variable: `x = trace;`, `sizeof(strlen)`. */
export function functionKind(name: string): string | undefined {
  if (ACTION_PROTOTYPES.has(name) || isStackActionName(name)) return 'tracing function';
  if (AGG_FUNCTION_NAMES.has(name)) return 'aggregating function';
  if (SUBROUTINE_BY_NAME.has(name) && !name.startsWith('<')) return 'function';
  return undefined;
}

/**
 * Errors DTrace finds while typing a clause's predicate or actions name the region when there is
 * no line to name (-n): "in action list: ...". Those its parser finds (constant division by
 * zero, type names, offsetof's operands) name none.
 */
/** As DTrace's parser does, refuse a divisor that is the constant zero at compile time. */
function refuseDivisionByZero(e: A.Binary | A.Assignment): void {
  // (`x /= 0` and `x %= 0` too: DTrace's parser checks the compound forms alike.)
  const divisor = e.kind === 'Binary' ? e.right : e.value;
  if ((e.op === '/' || e.op === '%' || e.op === '/=' || e.op === '%=') && constValue(divisor) === 0n)
    throw err('D_DIV_ZERO', 'expression contains division by zero', e);
}

/** refuseDivisionByZero over every operation in `node`, compiled or not. */
function refuseDivisionsByZero(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(refuseDivisionsByZero);
  if (node === null || typeof node !== 'object') return;
  if ((node as A.Expression).kind === 'Binary' || (node as A.Expression).kind === 'Assignment') refuseDivisionByZero(node as A.Binary | A.Assignment);
  Object.values(node).forEach(refuseDivisionsByZero);
}

const PARSE_TIME = new Set(['D_DIV_ZERO', 'D_UNKNOWN', 'D_OFFSETOF_TYPE', 'D_OFFSETOF_BITFIELD']);
/**
 * ... and those its code generator finds (dt_cg), after typing, name none either: the checks of
 * printf/printa formats and arguments, of aggregating functions' arguments, of the sizes given
 * to stack(), ustack(), tracemem() and alloca(), and of what trace() and functions may be.
 */
const CODE_GENERATION = /^D_(PRINTF_|PRINTA_|LQUANT_|LLQUANT_|USTACK_|TRACEMEM_SIZE$|TRUNC_AGGARG$|TRACE_VOID$|TRACE_DYN$|STACK_SIZE$|ALLOCA_SIZE$|AGG_SCALAR$|CLEAR_AGGARG$|NORMALIZE_AGGARG$|FUNC_UNDEF$|FUNC_IDKIND$|CG_EXPR$|SYNTAX$|FREOPEN_INVALID$|PRINT_SIZE$)/;
function inRegion<T>(region: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof DtraceError && e.region === undefined && !PARSE_TIME.has(e.tag) && !CODE_GENERATION.test(e.tag)) e.region = region;
    throw e;
  }
}
